using System.Collections.Generic;
using Dapper;
using Acme.Meetings.Domain;

namespace Acme.Meetings.Data
{
    public class RoomRepository
    {
        private readonly IConnectionFactory _factory;

        public RoomRepository(IConnectionFactory factory)
        {
            _factory = factory;
        }

        public IEnumerable<Room> ListRooms()
        {
            using var connection = _factory.Open();
            return connection.Query<Room>("SELECT r.Id, r.Name, r.Capacity FROM dbo.Rooms r ORDER BY r.Name");
        }

        public void Rename(int roomId, string name)
        {
            using var connection = _factory.Open();
            connection.Execute("UPDATE dbo.Rooms SET Name = @name WHERE Id = @roomId", new { roomId, name });
        }

        public int UsageOf(int roomId)
        {
            using var connection = _factory.Open();
            return connection.ExecuteScalar<int>("EXEC dbo.GetRoomUsage @RoomId = @roomId", new { roomId });
        }
    }
}
