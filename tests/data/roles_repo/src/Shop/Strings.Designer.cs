namespace Shop;

internal class Strings
{
    internal static string Title => "Shop";
}
