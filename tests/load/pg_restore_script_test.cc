// pg_restore's script of the post-data entries split per entry (issue 31: post-data on
// lakedump's own connections, with pg_restore's own statements): the session settings apart,
// each entry's SQL with what pg_restore wrote for it (its header, its tablespace setting, its
// owner), and a script that cannot be split refused (the load then restores post-data
// through pg_restore).
#include "load/postgres/pg_restore_script.h"

#include <gtest/gtest.h>

namespace lakedump {
namespace {

// What pg_restore 15 wrote (`pg_restore --verbose --file=- --use-list=...` of a pg_dump -Fc;
// the \restrict lines of 15.14+ around it).
constexpr std::string_view kScript = R"(--
-- PostgreSQL database dump
--

\restrict 5uetgJaiMSjEBXXoXTTqqd81083yXOEneRiFbiVoKcNYBqD51aZbi9MeJvwYxoG

-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

-- Started on 2026-12-05 16:38:19 UTC

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;
SET ROLE loader;

SET default_tablespace = '';

--
-- TOC entry 3202 (class 2606 OID 16409)
-- Dependencies: 214
-- Name: a a_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
-- Data Pos: 0
--

ALTER TABLE ONLY public.a
    ADD CONSTRAINT a_pkey PRIMARY KEY (id);


SET default_tablespace = fast;

--
-- TOC entry 3203 (class 1259 OID 16410)
-- Dependencies: 214
-- Name: a_x; Type: INDEX; Schema: public; Owner: postgres; Tablespace: fast
-- Data Pos: 0
--

CREATE INDEX a_x ON public.a USING btree (x);


--
-- TOC entry 3360 (class 0 OID 0)
-- Dependencies: 3203
-- Name: INDEX a_x; Type: COMMENT; Schema: public; Owner: postgres
-- Data Pos: 0
--

COMMENT ON INDEX public.a_x IS 'an index
-- TOC entry lookalike';


--
-- TOC entry 3206 (class 3381 OID 16421)
-- Dependencies: 214 214
-- Name: st; Type: STATISTICS; Schema: public; Owner: postgres
-- Data Pos: 0
--

CREATE STATISTICS public.st ON id, x FROM public.a;


ALTER STATISTICS public.st OWNER TO postgres;

-- Completed on 2026-12-05 16:38:19 UTC

--
-- PostgreSQL database dump complete
--

\unrestrict 5uetgJaiMSjEBXXoXTTqqd81083yXOEneRiFbiVoKcNYBqD51aZbi9MeJvwYxoG

)";

const std::set<int> kIds = {3202, 3203, 3360, 3206, 3359};

TEST(SplitPgRestoreScriptTest, EachEntryGetsItsOwnSqlAndTheSettingsWrittenForIt) {
  const auto split = SplitPgRestoreScript(kScript, kIds);
  ASSERT_TRUE(split.has_value());
  // The settings every connection runs first, without the \restrict line and without the
  // tablespace the first entry needs.
  EXPECT_NE(split->preamble.find("SET statement_timeout = 0;"), std::string::npos);
  EXPECT_NE(split->preamble.find("set_config('search_path', '', false);"), std::string::npos);
  EXPECT_NE(split->preamble.find("SET ROLE loader;"), std::string::npos);
  EXPECT_EQ(split->preamble.find("default_tablespace"), std::string::npos);
  EXPECT_EQ(split->preamble.find("\\restrict"), std::string::npos);

  ASSERT_EQ(split->entries.size(), 4u);  // 3359 (a grant left out by pg_restore) has none
  EXPECT_EQ(split->entries.count(3359), 0u);
  const std::string& pkey = split->entries.at(3202);
  EXPECT_TRUE(pkey.starts_with("SET default_tablespace = '';\n\n--\n-- TOC entry 3202 "));
  EXPECT_NE(pkey.find("ADD CONSTRAINT a_pkey PRIMARY KEY (id);"), std::string::npos);
  EXPECT_EQ(pkey.find("fast"), std::string::npos);  // the next entry's setting is its own
  const std::string& index = split->entries.at(3203);
  EXPECT_TRUE(index.starts_with("SET default_tablespace = fast;\n")) << index;
  EXPECT_NE(index.find("CREATE INDEX a_x ON public.a USING btree (x);"), std::string::npos);
  EXPECT_EQ(index.find("COMMENT"), std::string::npos);
  // A line inside a definition that looks like a marker but is none stays in it.
  EXPECT_NE(split->entries.at(3360).find("IS 'an index\n-- TOC entry lookalike';"),
            std::string::npos);
  const std::string& stats = split->entries.at(3206);
  EXPECT_NE(stats.find("CREATE STATISTICS public.st"), std::string::npos);
  EXPECT_NE(stats.find("ALTER STATISTICS public.st OWNER TO postgres;"), std::string::npos);
  EXPECT_EQ(stats.find("\\unrestrict"), std::string::npos);
}

TEST(SplitPgRestoreScriptTest, AScriptWithoutEntriesIsAllSettings) {
  const auto split = SplitPgRestoreScript("SET lock_timeout = 0;\n", kIds);
  ASSERT_TRUE(split.has_value());
  EXPECT_TRUE(split->entries.empty());
  EXPECT_EQ(split->preamble, "SET lock_timeout = 0;\n");
}

// A marker twice (a definition that forges one for an entry in the list), a marker of an
// entry not asked for, a marker without its header line, a psql command: not split.
TEST(SplitPgRestoreScriptTest, AScriptThatCannotBeSplitIsRefused) {
  const std::string script(kScript);
  std::string forged = script;
  forged.replace(forged.find("-- TOC entry lookalike"), 22,
                 "--\n-- TOC entry 3206 (class 1 OID 2)");
  EXPECT_EQ(SplitPgRestoreScript(forged, kIds), std::nullopt);
  EXPECT_EQ(SplitPgRestoreScript(script, {3202, 3203, 3360}), std::nullopt);
  std::string headless = script;
  headless.erase(headless.find("--\n-- TOC entry 3360"), 3);
  EXPECT_EQ(SplitPgRestoreScript(headless, kIds), std::nullopt);
  std::string psql = script;
  psql.replace(psql.find("SET ROLE loader;"), 16, "\\connect other");
  EXPECT_EQ(SplitPgRestoreScript(psql, kIds), std::nullopt);
}

TEST(PgRestoreEntrySqlTest, SetsTheEntrysTablespaceAsPgRestoreDoes) {
  PgArchiveTocEntry e;
  e.desc = "INDEX";
  EXPECT_EQ(PgRestoreEntrySql(e, "CREATE INDEX i ON t (a);\n"), "CREATE INDEX i ON t (a);\n");
  e.has_tablespace = true;
  EXPECT_EQ(PgRestoreEntrySql(e, "X;\n"), "SET default_tablespace = '';\nX;\n");
  e.tablespace = "fast \"disk\"";
  EXPECT_EQ(PgRestoreEntrySql(e, "X;\n"), "SET default_tablespace = \"fast \"\"disk\"\"\";\nX;\n");
}

TEST(PgRestoreEntryNameTest, KindAndNameOnOneLine) {
  PgArchiveTocEntry e;
  e.desc = "CONSTRAINT";
  e.has_schema = true;
  e.schema = "app";
  e.tag = "orders orders\npkey";
  EXPECT_EQ(PgRestoreEntryName(e), "CONSTRAINT app.orders orders pkey");
  e.desc = "EVENT TRIGGER";
  e.has_schema = false;
  e.schema.clear();
  e.tag = "audit";
  EXPECT_EQ(PgRestoreEntryName(e), "EVENT TRIGGER audit");
}

}  // namespace
}  // namespace lakedump
