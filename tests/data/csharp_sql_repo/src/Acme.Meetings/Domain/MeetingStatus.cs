namespace Acme.Meetings.Domain
{
    public enum MeetingStatus
    {
        Scheduled,
        Cancelled,
        Finished
    }
}
