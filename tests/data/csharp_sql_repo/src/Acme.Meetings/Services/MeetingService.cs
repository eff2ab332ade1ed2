using System;
using System.Linq;
using Acme.Meetings.Data;
using Acme.Meetings.Domain;

namespace Acme.Meetings.Services
{
    /// <summary>Schedules meetings and looks them up.</summary>
    public class MeetingService : ServiceBase, IMeetingService
    {
        private readonly IMeetingRepository _repository;
        private readonly RoomRepository _rooms;

        public MeetingService(IMeetingRepository repository, RoomRepository rooms)
        {
            _repository = repository;
            _rooms = rooms;
        }

        public Meeting GetMeetingById(int id)
        {
            Log("get meeting " + id);
            return _repository.GetMeetingById(id);
        }

        public AuditEntry Schedule(Meeting meeting)
        {
            Validate(meeting);
            _repository.Save(meeting);
            return new AuditEntry("schedule", meeting.Id);
        }

        private void Validate(Meeting meeting)
        {
            var upcoming = _repository.ListUpcoming(meeting.RoomId);
            if (upcoming.Any(other => other.Overlaps(meeting)))
            {
                throw new InvalidOperationException("The room is already booked");
            }
        }
    }
}
