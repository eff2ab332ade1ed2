namespace Acme.Meetings.Services
{
    public class BrokenReport
    {
        public int Count( { return 0; }

        public string Title { get; set; }
    }
}
