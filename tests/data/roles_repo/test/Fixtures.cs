namespace Shop.Testing;

public static class Fixtures
{
    public static decimal Net() { return 100m; }
}
