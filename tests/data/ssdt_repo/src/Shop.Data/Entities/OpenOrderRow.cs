using System;

namespace Shop.Data.Entities;

/// <summary>A row of the [Sales].[OpenOrders] view (keyless in EF Core).</summary>
public class OpenOrderRow
{
    public int Id { get; set; }
    public int CustomerId { get; set; }
    public DateTime PlacedAt { get; set; }
    public decimal Total { get; set; }
    public decimal Due { get; set; }
}
