namespace Acme.Meetings.Domain
{
    /// <summary>Base class of every persisted entity.</summary>
    public abstract class Entity
    {
        public int Id { get; set; }
    }
}
