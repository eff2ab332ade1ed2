using System.Data;

namespace Acme.Meetings.Data
{
    public interface IConnectionFactory
    {
        IDbConnection Open();
    }
}
