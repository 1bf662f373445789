//! The names of evidence and effect keys (and of the keys nested in them) as a reader of each language reads
//! them. The JSON report keeps the keys; the explorer shows them in the
//! chosen language. A key missing here is shown as it is (and a test lists
//! the keys the rules emit, so a new one is a decision).

use super::Lang;

/// Chinese names of the keys rules and suggestions put in their evidence
/// and effect, sorted by key.
const ZH: &[(&str, &str)] = &[
    ("_id", "_id"),
    ("absence", "缺失的核实"),
    ("advised_for", "建议依据"),
    ("after_id", "_id 之后的键"),
    ("age_from", "年龄来自"),
    ("agree", "一致"),
    ("array_length", "数组长度"),
    ("avg", "平均"),
    ("avg_bytes", "平均字节"),
    ("avg_bytes_after", "之后平均字节"),
    ("avg_bytes_before", "之前平均字节"),
    ("avg_document_bytes", "文档平均字节"),
    ("back", "反向引用"),
    ("basis", "依据"),
    ("bytes", "字节"),
    ("bytes_after", "之后的字节"),
    ("bytes_before", "之前的字节"),
    ("bytes_per_element", "每个元素字节"),
    ("cardinality", "基数"),
    ("checked", "已检查"),
    ("children_per_parent_avg", "每个父文档的平均子文档数"),
    ("children_per_parent_max", "每个父文档的最多子文档数"),
    ("collation", "排序规则"),
    ("collections", "集合"),
    ("compared_with", "比较对象"),
    ("conversion", "转换"),
    ("copy", "副本类型"),
    ("correlation", "相关系数"),
    ("count", "次数"),
    ("counted_on", "统计范围"),
    ("covered_by", "被覆盖于"),
    ("critical_days", "严重的预测天数"),
    ("dangling", "悬空"),
    ("data_like_share", "像数据的键占比"),
    ("date_field", "日期字段"),
    ("date_strings", "日期字符串"),
    ("days_observed", "观察天数"),
    ("days_to_limit", "达到上限天数"),
    ("decimal_places", "小数位数"),
    ("decision", "决定"),
    ("deepest_path", "最深路径"),
    ("deployment_collections", "部署中的集合"),
    ("disagree", "不一致"),
    ("discriminator", "区分字段"),
    ("distinct_estimate", "不同值估计"),
    ("distinct_found", "找到的不同值"),
    ("distinct_in_sample", "样本中的不同值"),
    ("distinct_values", "不同值"),
    ("doc_size", "文档大小"),
    ("docs_examined_per_returned", "每返回一个文档检查的文档数"),
    ("document", "文档"),
    ("documents", "文档"),
    ("documents_before", "之前的文档数"),
    ("documents_changed", "改动的文档"),
    ("documents_marked", "标记的文档"),
    ("documents_measured", "测量的文档"),
    ("doubles", "双精度值"),
    ("drift", "不一致"),
    ("duplicate", "重复"),
    ("element_type", "元素类型"),
    ("elements", "元素"),
    ("elements_kept", "保留的元素"),
    ("empty_text", "空字符串"),
    ("equality", "等值"),
    ("events", "事件"),
    ("example", "示例"),
    ("example_beyond", "超出范围的示例"),
    ("example_inexact", "不精确的示例"),
    ("examples", "示例"),
    ("expected_elements", "预计元素数"),
    ("expired", "已过期"),
    ("expired_share", "已过期占比"),
    ("extends", "扩展"),
    ("extremes", "全集合极值"),
    ("fanout", "扇出"),
    ("field", "字段"),
    ("fields", "字段"),
    ("filter", "过滤条件"),
    ("first", "第一个"),
    ("fixed_schema", "固定结构"),
    ("forecast", "预测"),
    ("forecast_days", "预测天数"),
    ("forecast_severity", "按预测的严重程度"),
    ("formats", "格式"),
    ("from_other_side", "从另一边检查"),
    ("from_this_side", "从这一边检查"),
    ("growth", "增长"),
    ("heaviest_path", "最重的路径"),
    ("high", "上限"),
    ("holder", "持有者"),
    ("holding", "持有该字段的文档"),
    ("hour", "小时"),
    ("how", "方式"),
    ("identities_converted", "按类型转换的副本标识"),
    ("idle_by_index_stats", "$indexStats 显示空闲"),
    ("ids_compared", "比较的 _id"),
    ("ids_shared", "共有的 _id"),
    ("in_memory_sorts", "内存排序"),
    ("in_sample", "样本中出现"),
    ("index", "索引"),
    ("index_instead", "应改为索引的字段"),
    ("indexed", "已建索引"),
    ("indexes", "索引"),
    ("indexes_known", "已知索引"),
    ("inexact_fractions", "不精确的小数"),
    ("inexact_share", "不精确占比"),
    ("kept", "保留在内存中的文档"),
    ("key", "键"),
    ("key_kind", "键的类型"),
    ("key_type", "键的类型"),
    ("keys", "键"),
    ("keys_examined_per_returned", "每返回一个文档检查的索引键数"),
    ("kind", "种类"),
    ("lagging_fields", "落后于源文档的字段"),
    ("largest", "最大的文档"),
    ("largest_not_kept", "未保留在内存中的最大文档"),
    ("last", "最后一个"),
    ("leading_key_only", "仅前导键"),
    ("left_as_they_are", "保持原样"),
    ("length", "长度"),
    ("limit_bytes", "上限字节"),
    ("list", "列表"),
    ("longest_in_collection", "全集合最长"),
    ("lookup", "$lookup"),
    ("lookup_key", "查找键"),
    ("lookups", "$lookup 次数"),
    ("low", "下限"),
    ("marked_with", "标记为"),
    ("match_rate_as_stored", "按原样的匹配率"),
    ("match_rate_converted", "转换后的匹配率"),
    ("max", "最大"),
    ("max_bytes_after", "之后最大字节"),
    ("max_bytes_before", "之前最大字节"),
    ("max_depth", "最大深度"),
    ("max_key_presence", "最常见键的出现率"),
    ("measured_over", "测量范围"),
    ("median_presence", "出现率中位数"),
    ("method", "方法"),
    ("min", "最小"),
    ("missing", "不存在"),
    ("money_name", "金额字段名"),
    ("ms", "毫秒"),
    ("n", "n"),
    ("name", "名称"),
    ("name_bytes_per_document", "每个文档的字段名字节"),
    ("name_bytes_share", "字段名字节占比"),
    ("names", "指向"),
    ("names_another", "指向别处"),
    ("names_none", "没有反向引用"),
    ("namespace", "命名空间"),
    ("native_type", "原生类型"),
    ("newest", "最晚"),
    ("not_a_date", "不是日期"),
    ("note", "说明"),
    ("nreturned", "返回文档数"),
    ("numbers", "数字"),
    ("numbers_as_text", "写成文本的数字"),
    ("numeric_reason", "数值原因"),
    ("oldest", "最早"),
    ("op", "操作"),
    ("ordered_by", "排序或比较它的查询"),
    ("other", "另一种测量"),
    ("other_side", "另一边"),
    ("over", "超过阈值"),
    ("own_fields", "自有字段"),
    ("p50", "中位数"),
    ("p95", "p95"),
    ("parent", "父文档"),
    ("path", "路径"),
    ("path_avg_threshold", "路径平均大小阈值"),
    ("paths", "路径"),
    ("paths_capped", "路径已截断"),
    ("paths_under_dynamic_keys", "动态键下的路径"),
    ("pattern", "名称模式"),
    ("per_day", "每天"),
    ("plans", "执行计划"),
    ("position", "位置"),
    ("preallocated", "预分配"),
    ("profile", "配置"),
    ("projection", "投影"),
    ("range", "范围字段"),
    ("rank", "排名"),
    ("read_share", "读取占比"),
    ("reads", "读取"),
    ("reason", "原因"),
    ("reference", "引用"),
    ("referenced_by", "被引用于"),
    ("references", "引用"),
    ("references_disagreeing", "不一致的引用"),
    ("relationship", "关系"),
    ("renames", "重命名"),
    ("repeated", "重复指向"),
    ("repeated_findings", "在成员中重复的发现"),
    ("retweeted_status", "retweeted_status"),
    ("same_documents", "相同的文档"),
    ("sampled", "样本"),
    ("saved_bytes_collection", "整个集合节省的字节"),
    ("saved_bytes_per_document", "每个文档节省的字节"),
    ("saved_share", "节省占比"),
    ("scan", "扫描"),
    ("schema_versions", "结构版本"),
    ("scope", "测量范围"),
    ("series_key", "序列键"),
    ("server_counts", "服务器计数"),
    ("server_limit", "服务器上限"),
    ("severity", "严重程度"),
    ("shape", "查询形状"),
    ("shape_similarity", "结构相似度"),
    ("shapes", "查询形状"),
    ("share", "占比"),
    ("share_held_by_other", "另一方持有的占比"),
    ("share_interval", "占比区间"),
    ("share_lower_bound", "占比下限"),
    ("shared_fields", "共有字段"),
    ("shared_paths", "共有路径数"),
    ("sort", "排序"),
    ("source", "来源"),
    ("span_days", "跨越天数"),
    ("store", "会话或令牌集合"),
    ("stored_as_strings", "以字符串保存的引用"),
    ("strings_matched", "匹配的字符串"),
    ("strings_share", "字符串占比"),
    ("target", "目标"),
    ("target_type", "目标类型"),
    ("this_side", "这一边"),
    ("threshold", "阈值"),
    ("time_share", "时间占比"),
    ("total", "总计"),
    ("types", "类型"),
    ("unique", "唯一"),
    ("unique_index", "唯一索引"),
    ("updates", "更新"),
    ("usage", "使用情况"),
    ("value", "值"),
    ("values", "值"),
    ("values_already_target", "已是目标类型的值"),
    ("values_converted", "转换的值"),
    ("values_left_as_they_are", "保持原样的值"),
    ("values_measured", "测量的值"),
    ("warning_days", "警告的预测天数"),
    ("whole_field", "整个字段"),
    ("widest_object", "键最多的对象"),
    ("within", "文档内"),
    ("workload", "工作负载"),
    ("written_instead", "文档实际写入的字段"),
];

/// The key `key` as a reader of `lang` reads it: English keeps the report's
/// key; Chinese gets its name, or the key where none is known.
pub(crate) fn key(key: &str, lang: Lang) -> &str {
    match lang {
        Lang::En => key,
        Lang::Zh => ZH
            .binary_search_by(|(k, _)| k.cmp(&key))
            .map_or(key, |i| ZH[i].1),
    }
}

/// docshape's own words that name a kind, a cardinality or a method, in
/// Chinese, by what they name (`scope`, `kind`, `cardinality`, `method`,
/// `accepted_by`) — the JSON report keeps the English words.
const WORDS: &[(&str, &str, &str)] = &[
    ("accepted_by", "name-and-values", "名称与值"),
    ("accepted_by", "values", "值"),
    ("advised_for", "parent-reference", "父引用"),
    ("advised_for", "workload", "工作负载中的查询"),
    ("basis", "name-and-values", "名称与值"),
    ("basis", "values", "值"),
    ("cardinality", "one-to-few", "一对少"),
    ("cardinality", "one-to-many", "一对多"),
    ("cardinality", "one-to-one", "一对一"),
    ("cardinality", "one-to-squillions", "一对海量"),
    ("kind", "child-reference", "子引用"),
    ("kind", "embedded", "内嵌"),
    ("kind", "extended-reference", "扩展引用"),
    ("kind", "parent-reference", "父引用"),
    ("kind", "twins", "孪生集合"),
    ("kind", "two-way-reference", "双向引用"),
    ("kind", "types", "按类型拆分的集合"),
    ("method", "all", "全部读取"),
    ("method", "age-correlation", "与年龄的相关"),
    ("method", "array-length", "数组长度"),
    ("method", "element-dates", "元素日期"),
    ("method", "file-scan", "扫描文件"),
    ("method", "sample", "样本"),
    ("method", "server-group", "服务器分组"),
    ("method", "snapshot", "快照"),
    ("method", "unique-index", "唯一索引"),
    ("pattern", "attribute", "属性模式"),
    ("pattern", "bucket", "分桶模式"),
    ("pattern", "child-reference", "子引用"),
    ("pattern", "computed", "计算模式"),
    ("pattern", "embed", "内嵌"),
    ("pattern", "extended-reference", "扩展引用"),
    ("pattern", "gridfs", "GridFS"),
    ("pattern", "index", "索引"),
    ("pattern", "outlier", "异常值模式"),
    ("pattern", "parent-reference", "父引用"),
    ("pattern", "pending", "待定：读完全部集合后给出"),
    ("pattern", "polymorphic", "多态模式"),
    ("pattern", "schema-versioning", "模式版本化"),
    ("pattern", "separate-collection", "独立集合"),
    ("pattern", "subset", "子集模式"),
    ("pattern", "two-way-reference", "双向引用"),
    ("scope", "collection", "全集合"),
    ("scope", "sample", "样本"),
];

/// The value of an evidence key as a reader of `lang` reads it, where the
/// value is one of docshape's words (`scope`: `collection` or `sample`).
pub(crate) fn value(k: &str, v: &str, lang: Lang) -> Option<&'static str> {
    match lang {
        Lang::Zh => WORDS
            .iter()
            .find(|(key, word, _)| *key == k && *word == v)
            .map(|(_, _, zh)| *zh),
        Lang::En => None,
    }
}

/// A string below `parent` as a reader of `lang` reads it, when it is one
/// of docshape's words under one of docshape's own objects (never a
/// user's value below a user's field).
pub(crate) fn nested_value(parent: &str, k: &str, v: &str, lang: Lang) -> Option<String> {
    STRUCTURE
        .contains(&parent)
        .then(|| value(k, v, lang))
        .flatten()
        .map(str::to_owned)
}

/// One of docshape's words (see [`value`]) as a reader of `lang` reads it:
/// itself when it has no translation.
pub(crate) fn word(k: &str, v: &str, lang: Lang) -> String {
    value(k, v, lang).map_or_else(|| v.to_owned(), str::to_owned)
}

/// Evidence objects whose keys are docshape's own (a threshold, a growth
/// measurement, a query shape …): below any other key, keys are a user's
/// field names (a filter, an index key, a sort) and are never translated.
const STRUCTURE: &[&str] = &[
    "absence",
    "array_length",
    "decision",
    "distinct_estimate",
    "doc_size",
    "drift",
    "extremes",
    "fanout",
    "forecast_severity",
    "from_other_side",
    "from_this_side",
    "growth",
    "index",
    "largest_not_kept",
    "longest_in_collection",
    "ms",
    "other",
    "other_side",
    "server_counts",
    "shape",
    "shapes",
    "this_side",
    "threshold",
    "usage",
    "within",
];

/// A key nested in the evidence object `parent`, as a reader of `lang`
/// reads it: translated where `parent` is docshape's own structure, as it
/// is where it is a user's document.
pub(crate) fn nested(parent: &str, k: &str, lang: Lang) -> String {
    if STRUCTURE.contains(&parent) {
        key(k, lang).to_owned()
    } else {
        k.to_owned()
    }
}

/// An evidence or effect value as a reader of `lang` reads it: docshape's
/// keys and words in that language, units as the keys say.
pub(crate) fn shown(k: &str, v: &serde_json::Value, lang: Lang) -> String {
    crate::fmt::evidence_named(
        k,
        v,
        &|parent, x| nested(parent, x, lang),
        &|parent, x, t| nested_value(parent, x, t, lang),
    )
}

/// An evidence entry's value as [`shown`], or, for a word of docshape's
/// own (a pattern, a method), that word in `lang`.
pub(crate) fn shown_entry(k: &str, v: &serde_json::Value, lang: Lang) -> String {
    match v.as_str().and_then(|t| value(k, t, lang)) {
        Some(word) => word.to_owned(),
        None => shown(k, v, lang),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_and_every_name_is_chinese_or_an_identifier() {
        assert!(
            ZH.windows(2).all(|w| w[0].0 < w[1].0),
            "sorted, no duplicates"
        );
        assert_eq!(key("array_length", Lang::Zh), "数组长度");
        assert_eq!(key("array_length", Lang::En), "array_length");
        assert_eq!(key("no_such_key", Lang::Zh), "no_such_key");
        // A user's field named like a key of docshape's stays as it is.
        assert_eq!(nested("threshold", "name", Lang::Zh), "名称");
        assert_eq!(nested("filter", "name", Lang::Zh), "name");
        assert_eq!(nested("key", "sort", Lang::Zh), "sort");
    }

    #[test]
    fn docshape_words_are_translated_and_a_user_value_never_is() {
        assert_eq!(
            nested_value("growth", "method", "age-correlation", Lang::Zh).as_deref(),
            Some("与年龄的相关")
        );
        assert_eq!(
            nested_value("growth", "method", "age-correlation", Lang::En),
            None
        );
        // Below a user's filter, `method` is a field of theirs.
        assert_eq!(nested_value("filter", "method", "sample", Lang::Zh), None);
        assert_eq!(word("kind", "parent-reference", Lang::Zh), "父引用");
        assert_eq!(
            word("kind", "parent-reference", Lang::En),
            "parent-reference"
        );
        assert_eq!(word("kind", "no-such-kind", Lang::Zh), "no-such-kind");
        for (k, v, zh) in WORDS {
            assert!(
                WORDS.iter().filter(|(a, b, _)| a == k && b == v).count() == 1 && !zh.is_empty(),
                "{k} {v}: one translation"
            );
        }
    }

    /// Every evidence or effect key a rule or a suggestion writes has a
    /// Chinese name: the keys are read from the sources, so a new one fails
    /// here until it is named.
    #[test]
    fn every_key_the_rules_write_has_a_chinese_name() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let re = regex_lite::Regex::new(
            r#"(?:\(\s*"([a-z_]+)",\s*(?:json!|crossed|serde_json))|(?:insert\(\s*"([a-z_]+)")"#,
        )
        .expect("regex");
        let mut missing = std::collections::BTreeSet::new();
        for dir in ["rules", "advise"] {
            for e in std::fs::read_dir(root.join(dir)).expect("sources") {
                let p = e.expect("entry").path();
                let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
                let test_only = name.starts_with("cases")
                    || matches!(name, "tests.rs" | "testing.rs" | "kit.rs");
                if p.extension().is_none_or(|x| x != "rs") || test_only {
                    continue;
                }
                let text = std::fs::read_to_string(&p).expect("source");
                for c in re.captures_iter(&text) {
                    let k = c.get(1).or_else(|| c.get(2)).expect("a key").as_str();
                    if ZH.binary_search_by(|(x, _)| x.cmp(&k)).is_err() {
                        missing.insert(k.to_owned());
                    }
                }
            }
        }
        assert!(missing.is_empty(), "no Chinese name for {missing:?}");
    }
}
