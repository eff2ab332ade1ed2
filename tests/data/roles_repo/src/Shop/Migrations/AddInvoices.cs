namespace Shop.Migrations;

public class AddInvoices
{
    public void Up() { }
}
