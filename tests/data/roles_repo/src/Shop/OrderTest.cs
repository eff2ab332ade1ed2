namespace Shop;

public class OrderTest
{
    public void Ships() { }
}
