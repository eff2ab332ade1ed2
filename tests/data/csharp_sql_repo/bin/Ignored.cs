namespace Acme.Ignored { public class ShouldNotBeIndexed { } }
