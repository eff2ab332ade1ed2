using Acme.Meetings.Domain;

namespace Acme.Meetings.Services
{
    public interface IMeetingService
    {
        Meeting GetMeetingById(int id);
        AuditEntry Schedule(Meeting meeting);
    }
}
