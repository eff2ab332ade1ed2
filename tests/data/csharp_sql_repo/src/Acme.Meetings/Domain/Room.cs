namespace Acme.Meetings.Domain
{
    public class Room : Entity
    {
        public string Name { get; set; }
        public int Capacity { get; set; }

        public bool Fits(int attendees) => attendees <= Capacity;
    }
}
