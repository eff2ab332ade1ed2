namespace Shop;

public class InvoiceService
{
    public decimal ComputeTotal(decimal net, decimal discount, string currency)
    {
        var rounded = Math.Round(net - discount, 2);
        var taxed = rounded * TaxRate(currency);
        Log.Information("invoice in {Currency}", currency);
        return taxed;
    }

    private static decimal TaxRate(string currency) { return currency == "EUR" ? 1.2m : 1.0m; }
}
