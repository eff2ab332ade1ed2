#include "repo_generator.h"

#include <filesystem>
#include <fstream>
#include <random>

#include <fmt/format.h>

namespace attractor::bench {

namespace {

const std::vector<std::string> kNouns = {"Invoice",  "Customer",     "Order",    "Shipment", "Payment",
                                         "Product",  "Warehouse",    "Employee", "Contract", "Ticket",
                                         "Supplier", "Account",      "Budget",   "Campaign", "Delivery",
                                         "Refund",   "Subscription", "Vendor",   "License",  "Asset"};
const std::vector<std::string> kVerbs = {"Get",     "Create",  "Update", "Delete", "List",      "Validate",
                                         "Archive", "Approve", "Export", "Import", "Reconcile", "Notify"};
const std::vector<std::string> kRoles = {"Service", "Repository", "Controller", "Handler", "Validator"};

std::string class_name(int i) {
  return kNouns[static_cast<size_t>(i) % kNouns.size()] + kRoles[static_cast<size_t>(i / 20) % kRoles.size()] +
         std::to_string(i);
}

std::string table_name(int k) { return kNouns[static_cast<size_t>(k) % kNouns.size()] + "s" + std::to_string(k); }

}  // namespace

std::vector<std::string> generate_repository(const std::string& root, int files, int queries) {
  namespace fs = std::filesystem;
  std::mt19937 rng(42);
  int sql_files = files / 5;
  int cs_files = files - sql_files;
  for (int i = 0; i < cs_files; ++i) {
    int module = i % 50;
    fs::path dir = fs::path(root) / "src" / fmt::format("Module{}", module);
    fs::create_directories(dir);
    std::string name = class_name(i);
    std::string noun = kNouns[static_cast<size_t>(i) % kNouns.size()];
    int dep = static_cast<int>(rng() % static_cast<unsigned>(cs_files));
    std::string dep_name = class_name(dep);
    std::string out = fmt::format(
        "using System;\nusing System.Collections.Generic;\nusing Dapper;\n\n"
        "namespace Gen.Module{}\n{{\n    /// <summary>Handles {} records.</summary>\n"
        "    public class {}\n    {{\n        private readonly Gen.Module{}.{} _next;\n"
        "        public int Version {{ get; set; }}\n\n"
        "        public {}({} next)\n        {{\n            _next = next;\n        }}\n",
        module, noun, name, dep % 50, dep_name, name, dep_name);
    for (int m = 0; m < 6; ++m) {
      std::string verb = kVerbs[rng() % kVerbs.size()];
      int table = static_cast<int>(rng() % static_cast<unsigned>(std::max(1, sql_files)));
      std::string callee_verb = kVerbs[rng() % kVerbs.size()];
      out += fmt::format(
          "\n        public IEnumerable<int> {}{}By{}(int id, string filter)\n        {{\n"
          "            if (id <= 0) throw new ArgumentException(\"invalid {} id\");\n"
          "            var rows = connection.Query<int>(\"SELECT Id FROM dbo.{} WHERE Id = @id AND Name LIKE "
          "@filter\", new {{ id, filter }});\n"
          "            _next.Process{}(id);\n            return rows;\n        }}\n",
          verb, noun, m == 0 ? "Id" : kNouns[(static_cast<size_t>(m) + static_cast<size_t>(i)) % kNouns.size()], noun,
          table_name(table), callee_verb);
    }
    out += fmt::format(
        "\n        public void Process{}(int id)\n        {{\n            Version++;\n        }}\n    }}\n}}\n",
        kVerbs[static_cast<size_t>(i) % kVerbs.size()]);
    std::ofstream(dir / (name + ".cs")) << out;
  }
  for (int k = 0; k < sql_files; ++k) {
    fs::path dir = fs::path(root) / "db" / fmt::format("schema{}", k % 20);
    fs::create_directories(dir);
    std::string t = table_name(k);
    std::string other = table_name((k + 7) % std::max(1, sql_files));
    std::string out = fmt::format(
        "CREATE TABLE dbo.{} (\n    Id INT NOT NULL PRIMARY KEY,\n    Name NVARCHAR(200) NOT NULL,\n"
        "    OwnerId INT NULL REFERENCES dbo.{}(Id),\n    CreatedAt DATETIME2 NOT NULL\n);\nGO\n\n"
        "CREATE VIEW dbo.Active{} AS\nSELECT t.Id, t.Name FROM dbo.{} t JOIN dbo.{} o ON o.Id = t.OwnerId;\nGO\n\n"
        "CREATE PROCEDURE dbo.Purge{}\n    @Before DATETIME2\nAS\nBEGIN\n    DELETE FROM dbo.{} WHERE CreatedAt < "
        "@Before;\n"
        "    INSERT INTO dbo.{} (Id, Name, CreatedAt) SELECT Id, Name, CreatedAt FROM dbo.Active{};\nEND\nGO\n",
        t, other, t, t, other, t, t, other, t);
    std::ofstream(dir / (t + ".sql")) << out;
  }
  std::vector<std::string> q;
  for (int i = 0; i < queries; ++i) {
    switch (i % 4) {
      case 0: q.push_back(class_name(static_cast<int>(rng() % static_cast<unsigned>(cs_files)))); break;
      case 1: q.push_back(kVerbs[rng() % kVerbs.size()] + kNouns[rng() % kNouns.size()] + "ById"); break;
      case 2: q.push_back("purge old " + kNouns[rng() % kNouns.size()] + " rows"); break;
      default:
        q.push_back("validate " + kNouns[rng() % kNouns.size()] + " and notify " + kNouns[rng() % kNouns.size()]);
        break;
    }
  }
  return q;
}

}  // namespace attractor::bench
