/**
 * The index schema as an ordered list of migrations. `PRAGMA user_version` records how many have
 * run; each migration runs in its own transaction, exactly once.
 */
export const MIGRATIONS: readonly string[] = [
  // 1: sources, documents, full-text index, crawl history and log.
  `
  CREATE TABLE sources (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    start_addresses TEXT NOT NULL,
    display_addresses TEXT NOT NULL,
    rules TEXT NOT NULL,
    settings TEXT NOT NULL,
    paused INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL
  );

  -- Identical security descriptors are stored once (thousands of files share a handful of ACLs).
  CREATE TABLE acls (
    id INTEGER PRIMARY KEY,
    hash TEXT NOT NULL UNIQUE,
    descriptor TEXT NOT NULL
  );

  -- One row per item the crawl has indexed (fully, by metadata only, or as failed): this table is
  -- also the crawl history that incremental crawls compare against.
  CREATE TABLE documents (
    id INTEGER PRIMARY KEY,
    source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
    url TEXT NOT NULL,
    path TEXT NOT NULL,
    name TEXT NOT NULL,
    title TEXT,
    description TEXT,
    keywords TEXT,
    author TEXT,
    mime TEXT,
    ext TEXT NOT NULL DEFAULT '',
    size INTEGER NOT NULL DEFAULT 0,
    mtime INTEGER NOT NULL DEFAULT 0,
    ctime INTEGER NOT NULL DEFAULT 0,
    crawl_time INTEGER NOT NULL,
    content_hash TEXT,
    acl_id INTEGER REFERENCES acls(id),
    security_key TEXT,
    status TEXT NOT NULL DEFAULT 'ok',
    error TEXT,
    body_z BLOB,
    etag TEXT,
    last_modified TEXT,
    outlinks TEXT,
    hops TEXT,
    UNIQUE (source_id, url)
  );
  CREATE INDEX documents_mtime ON documents(mtime);
  CREATE INDEX documents_name ON documents(name COLLATE NOCASE);
  CREATE INDEX documents_ext ON documents(ext);
  CREATE INDEX documents_acl ON documents(acl_id);

  -- Contentless full-text index (rowid = documents.id); original text lives compressed in
  -- documents.body_z so the index stays small. CJK runs are indexed as bigrams (see cjk.ts).
  CREATE VIRTUAL TABLE fts USING fts5(
    title, keywords, description, url, body,
    content = '', contentless_delete = 1,
    tokenize = 'porter unicode61 remove_diacritics 2'
  );
  CREATE VIRTUAL TABLE fts_vocab USING fts5vocab(fts, 'row');

  CREATE TABLE crawls (
    id INTEGER PRIMARY KEY,
    source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
    mode TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    ended_at INTEGER,
    status TEXT NOT NULL,
    discovered INTEGER NOT NULL DEFAULT 0,
    added INTEGER NOT NULL DEFAULT 0,
    updated INTEGER NOT NULL DEFAULT 0,
    not_modified INTEGER NOT NULL DEFAULT 0,
    deleted INTEGER NOT NULL DEFAULT 0,
    failed INTEGER NOT NULL DEFAULT 0,
    excluded INTEGER NOT NULL DEFAULT 0,
    error TEXT
  );
  CREATE INDEX crawls_source ON crawls(source_id, id);

  CREATE TABLE crawl_log (
    id INTEGER PRIMARY KEY,
    crawl_id INTEGER NOT NULL REFERENCES crawls(id) ON DELETE CASCADE,
    source_id INTEGER NOT NULL,
    at INTEGER NOT NULL,
    url TEXT NOT NULL,
    outcome TEXT NOT NULL,
    reason TEXT,
    status INTEGER,
    size INTEGER,
    hops TEXT,
    via TEXT,
    mime TEXT,
    duration_ms INTEGER,
    digest TEXT,
    annotations TEXT
  );
  CREATE INDEX crawl_log_crawl ON crawl_log(crawl_id);

  CREATE TABLE settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );
  `,
  // 2: the compressed text moves to its own table, so joins on documents (ranking with per-source
  // weights, trimming, filters) stay on a slim table that fits the page cache.
  `
  CREATE TABLE bodies (
    id INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
    body_z BLOB NOT NULL
  );
  INSERT INTO bodies (id, body_z) SELECT id, body_z FROM documents WHERE body_z IS NOT NULL;
  ALTER TABLE documents DROP COLUMN body_z;
  `,
  // 3: the materialised top documents of frequent terms (query/term-tops.ts), and an epoch that
  // moves whenever a document's ACL changes, so per-ACL totals stored there can be proven current.
  `
  CREATE TABLE term_tops (
    term TEXT PRIMARY KEY,
    stamp TEXT NOT NULL,
    acl_epoch INTEGER NOT NULL,
    total INTEGER NOT NULL,
    ids BLOB NOT NULL,
    scores BLOB NOT NULL,
    acl_counts TEXT NOT NULL
  ) WITHOUT ROWID;

  CREATE TABLE index_epochs (
    name TEXT PRIMARY KEY,
    n INTEGER NOT NULL
  );
  INSERT INTO index_epochs (name, n) VALUES ('acl', 0);
  CREATE TRIGGER documents_acl_epoch AFTER UPDATE OF acl_id ON documents
    WHEN OLD.acl_id IS NOT NEW.acl_id
    BEGIN UPDATE index_epochs SET n = n + 1 WHERE name = 'acl'; END;
  `,
  // 4: the same epoch also moves when a document row comes or goes, so stored per-ACL totals are
  // proven current even if a row changes without its full-text entry.
  `
  CREATE TRIGGER documents_insert_epoch AFTER INSERT ON documents
    BEGIN UPDATE index_epochs SET n = n + 1 WHERE name = 'acl'; END;
  CREATE TRIGGER documents_delete_epoch AFTER DELETE ON documents
    BEGIN UPDATE index_epochs SET n = n + 1 WHERE name = 'acl'; END;
  `,
  // 5: a document whose text is left at the source keeps no copy in bodies: snippets and the preview
  // extract it again from the local file (filters/text-at-source.ts) while its bytes are unchanged.
  `
  ALTER TABLE documents ADD COLUMN text_at_source INTEGER NOT NULL DEFAULT 0;
  `,
  // 6: mail (.eml, read as raw text before; Outlook .msg), ZIP, gzip, EPUB, RTF, Office 97-2003 (DOC, XLS, PPT),
  // XLSX, PPTX and OpenDocument files have filters now, and Graphviz .dot/.gv files are read as text. Those
  // indexed before lose what the next crawl compares against — ctime, content hash, HTTP
  // validators — so it reads and indexes them again; nothing else is re-read.
  `
  UPDATE documents SET ctime = -1, content_hash = NULL, etag = NULL, last_modified = NULL
  WHERE lower(ext) IN ('eml', 'msg', 'zip', 'gz', 'gzip', 'epub', 'rtf', 'doc', 'xls', 'xlt', 'ppt', 'pps',
                       'dot', 'gv', 'xlsx', 'xlsm', 'xltx', 'pptx', 'pptm', 'ppsx', 'potx',
                       'odt', 'ott', 'ods', 'ots', 'odp', 'otp', 'odg', 'otg')
     OR mime LIKE 'application/vnd.oasis.opendocument.%'
     OR mime LIKE 'application/vnd.openxmlformats-officedocument.spreadsheetml.%'
     OR mime LIKE 'application/vnd.openxmlformats-officedocument.presentationml.%'
     OR mime IN ('message/rfc822', 'application/vnd.ms-outlook', 'application/zip', 'application/gzip', 'application/x-gzip',
                 'application/epub+zip', 'application/rtf', 'text/rtf', 'application/msword',
                 'application/vnd.ms-excel', 'application/vnd.ms-powerpoint',
                 'application/vnd.ms-excel.sheet.macroenabled.12',
                 'application/vnd.ms-powerpoint.presentation.macroenabled.12');
  `,
  // 7: text is left at the source only up to a limit per filter now (HTML 32 KiB, text 64 KiB;
  // it was 256 KiB for both), as re-reading larger files made snippets slow. Such files lose
  // what the next crawl compares against, so it reads them again and stores their text.
  `
  UPDATE documents SET ctime = -1, content_hash = NULL WHERE text_at_source = 1 AND size > 32768;
  `,
  // 8: photos and images (JPEG, PNG, TIFF, WebP, AVIF, HEIC) have a filter now (their EXIF, IPTC
  // and XMP properties); those indexed by name before are read again by the next crawl.
  `
  UPDATE documents SET ctime = -1, content_hash = NULL, etag = NULL, last_modified = NULL
  WHERE lower(ext) IN ('jpg', 'jpeg', 'jpe', 'jfif', 'png', 'tif', 'tiff', 'webp', 'avif', 'heic', 'heif')
     OR mime IN ('image/jpeg', 'image/pjpeg', 'image/png', 'image/tiff', 'image/webp', 'image/avif',
                 'image/heic', 'image/heif');
  `,
  // 9: music and other audio (MP3, FLAC, Ogg, Opus, M4A, WAV, AIFF, WMA) have a filter now (their
  // tags and lyrics); those indexed by name before are read again by the next crawl.
  `
  UPDATE documents SET ctime = -1, content_hash = NULL, etag = NULL, last_modified = NULL
  WHERE lower(ext) IN ('mp3', 'flac', 'ogg', 'oga', 'opus', 'm4a', 'm4b', 'wav', 'aif', 'aiff', 'wma')
     OR mime LIKE 'audio/%';
  `,
];
