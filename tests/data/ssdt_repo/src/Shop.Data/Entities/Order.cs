using System;

namespace Shop.Data.Entities
{
    public class Order
    {
        public int Id { get; set; }
        public long OrderNumber { get; set; }
        public int CustomerId { get; set; }
        public OrderStatus Status { get; set; }
        public DateTime PlacedAt { get; set; }
        public Customer? Customer { get; set; }
    }

    public enum OrderStatus : byte
    {
        New = 0,
        Paid = 1,
        Cancelled = 9
    }
}
