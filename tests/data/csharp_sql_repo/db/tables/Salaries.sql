CREATE TABLE payroll.Salaries (
    EmployeeId INT NOT NULL PRIMARY KEY,
    Amount DECIMAL(12, 2) NOT NULL
);
