// Package schema validates JSON values against the subset of JSON Schema
// that tool parameters use: type, properties, required,
// additionalProperties, enum, const, minimum/maximum (and their exclusive
// forms), minLength/maxLength, items and minItems/maxItems.
//
// A general validator (santhosh-tekuri/jsonschema) cost 7-20 ms and 1.7 MB
// of package initialisation in every bonsai process, about 40% of the
// start-up of `bonsai version`; this one costs nothing until it is used.
// Compile refuses keywords it does not know, so a schema can never carry a
// constraint that is silently ignored.
package schema
