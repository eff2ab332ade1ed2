namespace Shop;

public partial class InvoiceMapper
{
    public void MapInvoice() { }
}
