namespace Shop.Legacy;

public class OldInvoice
{
    public decimal Total(decimal net) { return net; }
}
