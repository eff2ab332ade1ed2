using System.Collections.Generic;
using System.Data;
using Dapper;
using Acme.Meetings.Domain;

namespace Acme.Meetings.Data
{
    /// <summary>Dapper-based meeting storage.</summary>
    public class MeetingRepository : IMeetingRepository
    {
        private readonly IConnectionFactory _factory;

        public MeetingRepository(IConnectionFactory factory)
        {
            _factory = factory;
        }

        public Meeting GetMeetingById(int id)
        {
            using var connection = _factory.Open();
            return connection.QuerySingleOrDefault<Meeting>(
                "SELECT Id, Title, RoomId, StartsAt, EndsAt, Status FROM dbo.Meetings WHERE Id = @id", new { id });
        }

        public IEnumerable<Meeting> ListUpcoming(int roomId)
        {
            using var connection = _factory.Open();
            return connection.Query<Meeting>(@"SELECT m.Id, m.Title
                FROM dbo.UpcomingMeetings m
                WHERE m.RoomId = @roomId", new { roomId });
        }

        public void Save(Meeting meeting)
        {
            using var connection = _factory.Open();
            connection.Execute(
                "INSERT INTO dbo.Meetings (Title, RoomId, StartsAt, EndsAt, Status) VALUES (@Title, @RoomId, @StartsAt, @EndsAt, 0)",
                meeting);
        }

        public void Cancel(int meetingId, string reason)
        {
            using var connection = _factory.Open();
            connection.Execute("dbo.CancelMeeting", new { meetingId, reason }, commandType: CommandType.StoredProcedure);
        }
    }
}
