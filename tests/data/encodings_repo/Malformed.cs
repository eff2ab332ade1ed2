public partial class Foo {
{
    Name: x,
    Kind: y,
    Call(a);
}
