using System.Data;
using System.Threading.Tasks;
using Dapper;

namespace Shop.Data
{
    /// <summary>
    /// Dapper base repository. Procedures follow the [Schema].[Entity_Action] convention, so a
    /// derived repository only names the action.
    /// </summary>
    public abstract class Repository<T, TId> where T : class
    {
        protected Repository(IDbConnectionFactory connections)
        {
            Connections = connections;
        }

        protected IDbConnectionFactory Connections { get; }

        protected string Schema { get; private set; } = "Sales";

        protected string Table { get; private set; } = typeof(T).Name;

        public async Task<T?> ReadByIdAsync(TId id)
        {
            using var connection = Connections.Open();
            return await connection.QuerySingleOrDefaultAsync<T>(
                $"[{Schema}].[{Table}_ReadById]",
                new { Id = id },
                commandType: CommandType.StoredProcedure);
        }
    }
}
