using System.Data;

namespace Shop.Data
{
    public interface IDbConnectionFactory
    {
        IDbConnection Open();
    }
}
