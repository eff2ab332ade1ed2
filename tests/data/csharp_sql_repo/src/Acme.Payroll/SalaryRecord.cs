namespace Acme.Payroll
{
    public class SalaryRecord
    {
        public int EmployeeId { get; set; }
        public decimal Amount { get; set; }
    }
}
