namespace Acme.Meetings.Domain;

public class Attendee : Entity
{
    public int MeetingId { get; set; }
    public string Email { get; set; }
}
