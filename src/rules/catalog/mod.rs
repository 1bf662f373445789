//! The rule catalogue (`../shared/spec/rules.md`): one file per rule, each
//! one `rule!` declaration beside its check, and this
//! list of them in the contract's order, from which the registry and the
//! thresholds are made. Adding a rule: its file here, one line below.

use super::declare::catalog;

catalog! {
    unbounded_array,
    large_reference_array,
    document_near_limit,
    bloated_document,
    time_series_per_event,
    dynamic_keys,
    mixed_types,
    denormalization_drift,
    missing_reference_index,
    redundant_index,
    unused_index,
    too_many_indexes,
    too_many_collections,
    deep_nesting,
    too_many_fields,
    polymorphic_without_discriminator,
    long_field_names,
    dangling_references,
    string_dates,
    lossy_numbers,
    non_unique_reference_key,
    reference_type_mismatch,
    id_led_index,
    collection_per_tenant,
    duplicate_collection,
    sibling_collections,
    expiring_without_ttl,
    numeric_strings,
    index_esr,
    unindexed_query,
    lookup_on_hot_path,
    push_without_slice,
    write_amplified_copy,
    case_insensitive_regex,
    two_way_out_of_sync,
}
