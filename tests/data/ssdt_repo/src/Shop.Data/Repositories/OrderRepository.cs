using System.Collections.Generic;
using System.Data;
using System.Linq;
using System.Threading.Tasks;
using Dapper;
using Shop.Data.Entities;

namespace Shop.Data
{
    public class OrderRepository : Repository<Order, int>
    {
        public OrderRepository(IDbConnectionFactory connections) : base(connections)
        {
        }

        public Task<Order?> GetAsync(int id) => ReadByIdAsync(id);

        public async Task<IReadOnlyList<Order>> GetByCustomerAsync(int customerId)
        {
            using var connection = Connections.Open();
            var rows = await connection.QueryAsync<Order>(
                $"[{Schema}].[{Table}_ReadByCustomer]",
                new { CustomerId = customerId },
                commandType: CommandType.StoredProcedure);
            return rows.ToList();
        }

        public async Task CancelAsync(int orderId, string reason)
        {
            using var connection = Connections.Open();
            await connection.ExecuteAsync(
                "[Sales].[Order_Cancel]",
                new { OrderId = orderId, Reason = reason },
                commandType: CommandType.StoredProcedure);
        }

        public async Task<IReadOnlyList<OpenOrderRow>> ListOpenAsync(int customerId)
        {
            using var connection = Connections.Open();
            var rows = await connection.QueryAsync<OpenOrderRow>(@"SELECT o.[Id], o.[CustomerId], o.[PlacedAt], o.[Total], o.[Due]
                FROM [Sales].[OpenOrders] o
                WHERE o.[CustomerId] = @customerId
                ORDER BY o.[PlacedAt] DESC", new { customerId });
            return rows.ToList();
        }
    }
}
