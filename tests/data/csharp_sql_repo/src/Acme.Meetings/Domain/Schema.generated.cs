namespace Acme.Meetings.Domain { public class GeneratedSchema { } }
