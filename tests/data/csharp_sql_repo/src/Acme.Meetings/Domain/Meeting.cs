using System;
using System.ComponentModel.DataAnnotations.Schema;

namespace Acme.Meetings.Domain
{
    [Table("Meetings", Schema = "dbo")]
    public class Meeting : Entity, IAuditable
    {
        public string Title { get; set; }
        public int RoomId { get; set; }
        public DateTime StartsAt { get; set; }
        public DateTime EndsAt { get; set; }
        public MeetingStatus Status { get; set; }
        public DateTime CreatedAt { get; set; }

        public bool Overlaps(Meeting other)
        {
            return RoomId == other.RoomId && StartsAt < other.EndsAt && other.StartsAt < EndsAt;
        }
    }
}
