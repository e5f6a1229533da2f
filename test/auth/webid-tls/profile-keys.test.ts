import { describe, expect, it } from 'vitest';
import { rsaKeysOf } from '../../../src/auth/webid-tls/profile-keys.ts';
import { parseRdf } from '../../../src/rdf/convert.ts';
import { TURTLE } from '../../../src/rdf/media.ts';

const CARD = 'https://alice.example/card';
const keysIn = async (turtle: string) =>
  rsaKeysOf(await parseRdf(`@prefix cert: <http://www.w3.org/ns/auth/cert#>. @prefix xsd: <http://www.w3.org/2001/XMLSchema#>.\n${turtle}`, TURTLE, CARD), `${CARD}#me`);

describe('rsaKeysOf', () => {
  it('reads blank-node and named keys, with the modulus in lower case and without leading zeros', async () => {
    const keys = await keysIn(`<#me> cert:key [ cert:modulus "00C0FFEE"^^xsd:hexBinary; cert:exponent 65537 ], <#key2>.
<#key2> cert:modulus "abcdef"; cert:exponent "3"^^xsd:integer.`);
    expect(keys).toEqual(expect.arrayContaining([{ modulus: 'c0ffee', exponent: 65537n }, { modulus: 'abcdef', exponent: 3n }]));
    expect(keys).toHaveLength(2);
  });

  it("leaves out keys of other subjects, incomplete keys, and values that are not hex or integers", async () => {
    expect(await keysIn(`<#other> cert:key [ cert:modulus "c0ffee"; cert:exponent 65537 ].
<#me> cert:key [ cert:modulus "c0ffee" ], [ cert:exponent 65537 ], [ cert:modulus "not hex"; cert:exponent 65537 ], [ cert:modulus "c0ffee"; cert:exponent "x" ].`)).toEqual([]);
  });
});
