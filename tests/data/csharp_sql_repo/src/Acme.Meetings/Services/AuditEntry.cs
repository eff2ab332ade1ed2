namespace Acme.Meetings.Services
{
    public record AuditEntry(string Action, int EntityId)
    {
        public override string ToString() => Action + ":" + EntityId;
    }
}
