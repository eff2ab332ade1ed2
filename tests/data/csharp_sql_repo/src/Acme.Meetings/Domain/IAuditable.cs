using System;

namespace Acme.Meetings.Domain
{
    public interface IAuditable
    {
        DateTime CreatedAt { get; }
    }
}
