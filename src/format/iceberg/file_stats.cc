#include "format/iceberg/file_stats.h"

#include <fmt/format.h>

#include "format/iceberg/iceberg_schema.h"
#include "format/iceberg/iceberg_values.h"
#include "format/parquet/parquet_schema.h"

namespace lakedump::iceberg {

Result<FileStats> StatsFromParquetFooter(const Schema& schema,
                                         const parquet::FileMetaData& footer) {
  FileStats out;
  const size_t ncols = schema.num_columns();
  // Bounds stay possible for a column until a row group with values lacks one.
  std::vector<bool> lower_ok(ncols, true), upper_ok(ncols, true);
  std::vector<bool> nulls_known(ncols, true);
  std::vector<int64_t> nulls_total(ncols, 0);
  // A list's metrics are its element's (its leaf's), under the element's field id;
  // without bounds, as Iceberg's Java writer keeps none below a list.
  std::vector<int> ids(ncols);
  std::vector<bool> bounded(ncols);
  for (size_t c = 0; c < ncols; ++c) {
    const std::optional<int> element = parquet::ListElementFieldId(schema, c);
    ids[c] = element.value_or(FieldIdOf(schema, c));
    bounded[c] = !element;
  }
  for (const parquet::RowGroup& group : footer.row_groups) {
    if (group.columns.size() != ncols) {
      return Status::Corruption(fmt::format("Parquet row group has {} columns, schema has {}",
                                            group.columns.size(), ncols));
    }
    if (!group.columns.empty()) {
      const int64_t offset = group.file_offset.value_or(group.columns[0].file_offset);
      out.split_offsets.push_back(offset);
    }
    for (size_t c = 0; c < ncols; ++c) {
      const int id = ids[c];
      const LogicalType& type = schema.column(c).type;
      const auto& meta = group.columns[c].meta_data;
      if (!meta) return Status::Corruption("Parquet column chunk without metadata");
      out.column_sizes[id] += meta->total_compressed_size;
      out.value_counts[id] += meta->num_values;
      const parquet::Statistics* st = meta->statistics ? &*meta->statistics : nullptr;
      const int64_t nulls = st && st->null_count ? *st->null_count : -1;
      if (nulls < 0) {
        nulls_known[c] = false;  // unknown in one row group: unknown for the file
      } else {
        nulls_total[c] += nulls;
      }
      const bool has_values = nulls < 0 || nulls < meta->num_values;
      if (!has_values || !bounded[c]) continue;
      auto merge = [&](const std::optional<std::string>& stat, bool lower,
                       std::map<int, std::string>* bounds, std::vector<bool>* ok) -> Status {
        if (!(*ok)[c]) return Status::OK();
        if (!stat) {
          (*ok)[c] = false;
          bounds->erase(id);
          return Status::OK();
        }
        LD_ASSIGN_OR_RETURN(std::string v, SingleValueFromParquetStat(type, *stat));
        auto it = bounds->find(id);
        if (it == bounds->end()) {
          bounds->emplace(id, std::move(v));
        } else {
          const int cmp = CompareSingleValues(type, v, it->second);
          if (lower ? cmp < 0 : cmp > 0) it->second = std::move(v);
        }
        return Status::OK();
      };
      LD_RETURN_IF_ERROR(merge(st ? st->min_value : std::nullopt, true, &out.lower_bounds,
                               &lower_ok));
      LD_RETURN_IF_ERROR(merge(st ? st->max_value : std::nullopt, false, &out.upper_bounds,
                               &upper_ok));
    }
  }
  for (size_t c = 0; c < ncols; ++c) {
    if (nulls_known[c]) out.null_value_counts[ids[c]] = nulls_total[c];
  }
  return out;
}

}  // namespace lakedump::iceberg
