using System.Collections.Generic;
using Acme.Meetings.Domain;

namespace Acme.Meetings.Data
{
    public interface IMeetingRepository
    {
        Meeting GetMeetingById(int id);
        IEnumerable<Meeting> ListUpcoming(int roomId);
        void Save(Meeting meeting);
        void Cancel(int meetingId, string reason);
    }
}
