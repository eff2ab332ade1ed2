namespace Shop.UnitTests;

public class FakeClock
{
    public int Now() { return 0; }
}
