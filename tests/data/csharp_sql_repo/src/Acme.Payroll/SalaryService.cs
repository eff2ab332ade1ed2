using System.Collections.Generic;
using Dapper;
using Acme.Meetings.Data;

namespace Acme.Payroll
{
    /// <summary>Confidential: reads salaries.</summary>
    public class SalaryService
    {
        private readonly IConnectionFactory _factory;

        public SalaryService(IConnectionFactory factory)
        {
            _factory = factory;
        }

        public IEnumerable<SalaryRecord> SalariesOf(int employeeId)
        {
            using var connection = _factory.Open();
            return connection.Query<SalaryRecord>("SELECT EmployeeId, Amount FROM payroll.Salaries WHERE EmployeeId = @employeeId", new { employeeId });
        }
    }
}
