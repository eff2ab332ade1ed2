namespace Shop.Tests;

public class InvoiceServiceTests
{
    public void ComputeTotal()
    {
        var service = new InvoiceService();
        Assert.Equal(120m, service.ComputeTotal(100m, 0m, "EUR"));
        Assert.Equal(0m, service.ComputeTotal(0m, 0m, "EUR"));
        Assert.Equal(10m, service.ComputeTotal(10m, 0m, "USD"));
    }
}
