using System.Threading.Tasks;
using Dapper;
using Shop.Data.Entities;

namespace Shop.Data
{
    public class CustomerRepository : Repository<Customer, int>
    {
        public CustomerRepository(IDbConnectionFactory connections) : base(connections)
        {
        }

        public async Task<Customer?> FindByEmailAsync(string email)
        {
            using var connection = Connections.Open();
            return await connection.QuerySingleOrDefaultAsync<Customer>(
                """
                SELECT c.[Id], c.[Name], c.[Email], c.[CreatedAt]
                FROM [Sales].[Customers] c
                WHERE c.[Email] = @email
                """,
                new { email });
        }
    }
}
