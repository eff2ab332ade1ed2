using Microsoft.EntityFrameworkCore;
using Acme.Meetings.Domain;

namespace Acme.Meetings.Data
{
    public class MeetingsDbContext : DbContext
    {
        public DbSet<Room> Rooms { get; set; }
        public DbSet<Attendee> Attendees { get; set; }

        protected override void OnModelCreating(ModelBuilder modelBuilder)
        {
            modelBuilder.Entity<Room>().ToTable("Rooms", "dbo");
            modelBuilder.Entity<Attendee>().ToTable("Attendees");
        }
    }
}
