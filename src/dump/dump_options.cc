#include "dump/dump_options.h"

#include <fmt/format.h>

namespace lakedump {

Result<IfExists> ParseIfExists(std::string_view text) {
  if (text == "fail") return IfExists::kFail;
  if (text == "overwrite") return IfExists::kOverwrite;
  if (text == "resume") return IfExists::kResume;
  return Status::InvalidArgument(
      fmt::format("--if-exists \"{}\": expected fail, overwrite or resume", text));
}

std::string_view IfExistsName(IfExists value) {
  switch (value) {
    case IfExists::kFail: return "fail";
    case IfExists::kOverwrite: return "overwrite";
    case IfExists::kResume: return "resume";
  }
  return "fail";
}

Result<TableFormat> ParseTableFormat(std::string_view text) {
  if (text == "parquet") return TableFormat::kParquet;
  if (text == "iceberg") return TableFormat::kIceberg;
  return Status::InvalidArgument(
      fmt::format("--table-format \"{}\": expected parquet or iceberg", text));
}

std::string_view TableFormatName(TableFormat value) {
  return value == TableFormat::kIceberg ? "iceberg" : "parquet";
}

nlohmann::json DumpOptionsToJson(const DumpOptions& o) {
  nlohmann::json j;
  j["table_parallelism"] = o.table_parallelism;
  j["tables"] = o.include;
  j["exclude"] = o.exclude;
  nlohmann::json queries = nlohmann::json::array();
  for (const auto& q : o.queries) queries.push_back({{"name", q.name}, {"sql", q.sql}});
  j["queries"] = queries;
  j["compression"] = std::string(CodecName(o.parquet.codec));
  j["compression_level"] = o.parquet.compression_level;
  j["row_group_rows"] = o.parquet.row_group_rows;
  j["row_group_bytes"] = o.parquet.row_group_bytes;
  j["file_size"] = o.file_size;
  j["partition_by"] = o.partition_by;
  j["table_format"] = std::string(TableFormatName(o.table_format));
  j["if_exists"] = std::string(IfExistsName(o.if_exists));
  j["batch_rows"] = o.batch_rows;
  j["read_ahead_batches"] = o.read_ahead_batches;
  j["schema_from"] = o.schema_from_source_tool ? "source" : "lakedump";
  if (o.shards > 0) j["shards"] = o.shards;
  return j;
}

}  // namespace lakedump
