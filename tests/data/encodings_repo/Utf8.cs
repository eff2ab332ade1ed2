namespace Enc;
// Grüße
public class Utf8 { public string Hi() => "€"; }
