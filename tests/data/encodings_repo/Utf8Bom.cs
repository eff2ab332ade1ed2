namespace Enc;
public class Utf8Bom { }
