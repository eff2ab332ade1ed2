using System;

namespace Acme.Meetings.Services
{
    public abstract class ServiceBase
    {
        protected void Log(string message)
        {
            Console.WriteLine(message);
        }
    }
}
