using System.Collections.Generic;
using Acme.Meetings.Data;
using Acme.Meetings.Domain;

namespace Acme.Meetings.Services
{
    public class RoomService : ServiceBase
    {
        private readonly RoomRepository _rooms;

        public RoomService(RoomRepository rooms)
        {
            _rooms = rooms;
        }

        public IEnumerable<Room> AvailableRooms(int attendees)
        {
            foreach (Room room in _rooms.ListRooms())
            {
                if (room.Fits(attendees))
                {
                    yield return room;
                }
            }
        }

        public void Rename(int roomId, string name)
        {
            Log("rename room");
            _rooms.Rename(roomId, name);
        }
    }
}
