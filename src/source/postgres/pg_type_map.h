// How a PostgreSQL column becomes a lakedump column: the logical type, the
// expression in the COPY's SELECT list and the decoder for its binary bytes.
// The mapping table and its policies are documented in docs/type-mapping.md.
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "source/postgres/pg_copy_decoder.h"
#include "table/schema.h"

namespace lakedump {

// numeric without a typmod, or wider than 38 digits.
enum class PgNumericPolicy : uint8_t {
  kString,   // exact text as PostgreSQL prints it (default); NaN/Infinity as "NaN"/"Infinity"
  kDouble,   // nearest double; NaN/Infinity as the IEEE values
  kDecimal,  // decimal(38, numeric_scale), rounded half away from zero; overflow fails
};

struct PgTypeOptions {
  PgNumericPolicy numeric = PgNumericPolicy::kString;
  int numeric_scale = 18;  // kDecimal only, 0..38
  // Tables whose arrays' form is decided already (an incremental base's, kept by its
  // increments; TableRef::QualifiedName -> the array columns read as text): such a table's
  // arrays are not scanned for their shapes, its other array columns are lists.
  std::map<std::string, std::vector<std::string>> known_array_text;
};

// One column as the catalog describes it, domains already resolved to their base type.
struct PgColumnInfo {
  std::string name;
  uint32_t base_oid = 0;     // type OID after resolving domains
  int32_t base_typmod = -1;  // typmod after resolving domains
  char base_typtype = 'b';   // pg_type.typtype of the base type ('b', 'e' enum, 'c', 'r', ...)
  char base_category = 'U';  // pg_type.typcategory ('A' = array)
  std::string base_name;     // pg_type.typname of the base type
  std::string format_type;   // format_type(atttypid, atttypmod) of the declared type
  bool not_null = false;
  // Arrays (base_category 'A'): the element type, domains resolved (0: unknown).
  uint32_t element_oid = 0;
  char element_typtype = 'b';
  char element_category = 'U';
  std::string element_name;
  // An array column holding a value with several dimensions or a lower bound other than 1:
  // read as its exact text (PgCatalog::CheckArrayShapes), not as a list.
  bool array_as_text = false;
  // GENERATED ALWAYS AS (...) STORED: read through COPY (SELECT ...), since COPY with a
  // column list refuses it.
  bool generated = false;
};

struct PgColumnMapping {
  Column column;
  PgFieldSpec field;
  std::string select_expr;  // e.g. "c", "c"::text, "c"::text[]
  bool text_fallback = false;  // no native mapping: read as its text output
};

PgColumnMapping MapPgColumn(const PgColumnInfo& info, const PgTypeOptions& options);

// numeric typmod -> (precision, scale); false when there is none.
// PostgreSQL 15+ stores the scale as an 11-bit signed field (-1000..1000).
bool DecodeNumericTypmod(int32_t typmod, int* precision, int* scale);

// "string" | "double" | "decimal" | "decimal(38,S)" (S = scale).
Status ParsePgNumericPolicy(std::string_view text, PgTypeOptions* out);
// "clamp" | "null" | "error".
Result<PgInfinityPolicy> ParsePgInfinityPolicy(std::string_view text);
// "error" | "null".
Result<PgNumericSpecialPolicy> ParsePgNumericSpecialPolicy(std::string_view text);

}  // namespace lakedump
