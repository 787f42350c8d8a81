/**
 * The command's help reads the contract's bounds from gen/calq.binpb's
 * bytes without protobuf-es; these checks hold that reading to the one
 * src/contract makes with protobuf-es, field by field, and every flag of
 * the table to a real field of gen/ that declares bounds.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { boundsInDescriptorSet, contractBounds } from "../../src/cli/declared-bounds.js";
import { boundsOf, FLAGS } from "../../src/cli/request-flags.js";
import { declaredBounds } from "../../src/contract/index.js";
import { loadContractRegistry } from "../../src/gateway/descriptors.js";

const registry = loadContractRegistry();

describe("the bounds the help reads from the descriptor set's bytes", () => {
  it("are, for every field of every message, the bounds protobuf-es reads", () => {
    const expected = new Map<string, object>();
    for (const type of registry) {
      if (type.kind !== "message") continue;
      for (const field of type.fields) {
        const declared = declaredBounds(field);
        if (declared === undefined) continue;
        const { field: _field, reason: _reason, ...numbers } = declared;
        expected.set(
          `${type.typeName}.${field.jsonName}`,
          Object.fromEntries(Object.entries(numbers).filter(([, value]) => value !== undefined)),
        );
      }
    }
    expect(expected.size).toBeGreaterThan(0);
    expect(new Map(contractBounds())).toEqual(expected);
  });

  it("read a negative bound as the 32-bit integer it is", () => {
    // FileDescriptorSet { file { package "t" message_type { name "M" field { name "f" options { [50003] { min: -5 } } } } } }
    const bounds = [0x08, ...[0xfb, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]];
    const options = [0x9a, 0xb5, 0x18, bounds.length, ...bounds];
    const field = [0x0a, 1, 0x66, 0x42, options.length, ...options];
    const message = [0x0a, 1, 0x4d, 0x12, field.length, ...field];
    const file = [0x12, 1, 0x74, 0x22, message.length, ...message];
    const set = new Uint8Array([0x0a, file.length, ...file]);
    expect(boundsInDescriptorSet(set)).toEqual(new Map([["t.M.f", { min: -5, list: false }]]));
  });

  it("name, for every flag that states bounds, a field of gen/ that declares them", () => {
    for (const help of Object.values(FLAGS)) {
      if (!("field" in help)) continue;
      const message = registry.getMessage(help.field.message);
      const field = message?.fields.find((candidate) => candidate.localName === help.field.property);
      expect(field?.jsonName, help.flag).toBe(help.field.property);
      expect(declaredBounds(field!), help.flag).toBeDefined();
      expect(boundsOf(help.field)).toEqual(contractBounds().get(`${help.field.message}.${help.field.property}`));
    }
  });

  it("are read from the same bytes gen/calq.binpb holds", () => {
    expect(boundsInDescriptorSet(readFileSync("gen/calq.binpb"))).toEqual(contractBounds());
  });
});
