// Schema: the named, typed columns of a table, plus what the source called them.
// Values; thread-safe to read.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "table/types.h"

namespace lakedump {

struct Column {
  std::string name;
  LogicalType type;
  bool nullable = true;
  // The source database's own type, e.g. "numeric(12,2)" or "TEXT"; for metadata and load.
  std::string source_type;
  // The column's Iceberg field id, and a list's element's, in the Parquet schema and the
  // Iceberg metadata. Unset: by position (parquet::ColumnFieldId). Set for every column of a
  // table whose Iceberg history gave them (iceberg::EvolveSchema), never for some only.
  std::optional<int> field_id = std::nullopt;
  std::optional<int> element_field_id = std::nullopt;
};

class Schema {
 public:
  Schema() = default;
  explicit Schema(std::vector<Column> columns) : columns_(std::move(columns)) {}

  const std::vector<Column>& columns() const { return columns_; }
  size_t num_columns() const { return columns_.size(); }
  const Column& column(size_t i) const { return columns_[i]; }
  void AddColumn(Column c) { columns_.push_back(std::move(c)); }
  std::optional<size_t> FindColumn(std::string_view name) const;

  // Every column has a non-empty, unique name and a valid type.
  Status Validate() const;

 private:
  std::vector<Column> columns_;
};

}  // namespace lakedump
