using System.Linq;
using Microsoft.EntityFrameworkCore;
using Shop.Data.Entities;

namespace Shop.Data
{
    public class ShopDbContext : DbContext
    {
        public ShopDbContext(DbContextOptions<ShopDbContext> options) : base(options)
        {
        }

        public DbSet<Order> Orders { get; set; } = null!;
        public DbSet<Customer> Customers { get; set; } = null!;
        public DbSet<Payment> Payments { get; set; } = null!;
        public DbSet<Refund> Refunds { get; set; } = null!;
        public DbSet<OpenOrderRow> OpenOrders { get; set; } = null!;

        protected override void OnModelCreating(ModelBuilder modelBuilder)
        {
            modelBuilder.HasDefaultSchema("Sales");

            modelBuilder.Entity<Customer>().ToTable("Customers", "Sales");

            modelBuilder.Entity<Payment>(b =>
            {
                b.ToTable("Payments", "Sales");
                b.HasKey(p => p.Id);
            });

            modelBuilder.Entity<OpenOrderRow>().HasNoKey().ToView("OpenOrders", "Sales");
        }

        public IQueryable<Order> OverdueOrders(int days)
        {
            return Orders.FromSqlRaw(
                "SELECT * FROM [Sales].[Orders] WHERE [Status] = 0 AND [PlacedAt] < DATEADD(DAY, -{0}, SYSUTCDATETIME())",
                days);
        }
    }
}
