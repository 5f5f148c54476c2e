import { describe, expect, it } from 'vitest';
import {
  anyValue,
  bool,
  int,
  mapOf,
  parseMarkerArguments,
  sliceOf,
  splitMarker,
  string,
  MarkerSyntaxError,
  type ArgType,
  type MarkerShape,
  type MarkerValue,
} from '../../src/markers/grammar.js';

const catchError = (f: () => unknown): unknown => {
  try {
    f();
  } catch (err) {
    return err;
  }
  return undefined;
};

const arg = (type: ArgType, raw: string): MarkerValue =>
  parseMarkerArguments(`+t=${raw}`, 't', { kind: 'anonymous', arg: { type } });

const multiField: MarkerShape = {
  kind: 'struct',
  args: {
    str: { type: string },
    int: { type: int },
    bool: { type: bool },
    any: { type: anyValue },
    ptrOpt: { type: string, optional: true },
    other: { type: string, optional: true },
    slice: { type: sliceOf(int) },
    sliceOfSlice: { type: sliceOf(sliceOf(int)) },
  },
};

describe('splitMarker', () => {
  it('splits at the first = and drops the last name segment for struct lookup', () => {
    expect(splitMarker('+kubebuilder:printcolumn:name="Age",type=date')).toMatchObject({
      name: 'kubebuilder:printcolumn',
      anonName: 'kubebuilder:printcolumn:name',
      rest: '"Age",type=date',
      restOffset: 30,
    });
    expect(splitMarker('+kubebuilder:subresource:status')).toMatchObject({
      name: 'kubebuilder:subresource:status',
      hasValue: false,
    });
    expect(splitMarker('+kubebuilder:default:=3')).toMatchObject({
      name: 'kubebuilder:default',
      anonName: 'kubebuilder:default:',
      rest: '3',
    });
  });
});

describe('marker shapes', () => {
  it('parses flags and rejects arguments on them', () => {
    expect(parseMarkerArguments('+optional', 'optional', { kind: 'flag' })).toBe(true);
    expect(() => parseMarkerArguments('+optional=true', 'optional', { kind: 'flag' })).toThrow(
      /extra arguments provided: "true"/,
    );
  });

  it('parses struct markers in any order, with the first argument glued to the name', () => {
    const out = parseMarkerArguments(
      '+m:str=some str,int=42,bool=true,any=21,ptrOpt="optional string",other="yet another",slice=99;104;101,sliceOfSlice={{1,1},{2,3},{5,8}}',
      'm',
      multiField,
    );
    expect(out).toEqual({
      str: 'some str',
      int: 42,
      bool: true,
      any: 21,
      ptrOpt: 'optional string',
      other: 'yet another',
      slice: [99, 104, 101],
      sliceOfSlice: [
        [1, 1],
        [2, 3],
        [5, 8],
      ],
    });
    const reordered = parseMarkerArguments(
      '+m:int=42,str=x,any=21,bool=false,sliceOfSlice={},slice=1',
      'm',
      multiField,
    );
    expect(reordered).toMatchObject({ int: 42, str: 'x', bool: false, slice: [1] });
  });

  it('reports missing, unknown and extra arguments with their position', () => {
    expect(() => parseMarkerArguments('+m:str=`hi`', 'm', multiField)).toThrow(/missing argument "int"/);
    try {
      parseMarkerArguments('+m:str=a,nope=1', 'm', multiField);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(MarkerSyntaxError);
      expect((err as MarkerSyntaxError).message).toMatch(/unknown argument "nope"/);
      expect((err as MarkerSyntaxError).offset).toBe('+m:str=a,'.length);
    }
    expect(() => parseMarkerArguments('+x=1 2', 'x', { kind: 'anonymous', arg: { type: int } })).toThrow(
      /extra arguments provided: "2"/,
    );
  });

  it('parses +default= as JSON and ignores ref(...)', () => {
    expect(parseMarkerArguments('+default="TCP"', 'default', { kind: 'json' })).toBe('TCP');
    expect(parseMarkerArguments('+default={"k":[1,2]}', 'default', { kind: 'json' })).toEqual({ k: [1, 2] });
    expect(parseMarkerArguments('+default=ref(Foo)', 'default', { kind: 'json' })).toBeNull();
    expect(() => parseMarkerArguments('+default=TCP', 'default', { kind: 'json' })).toThrow(/invalid JSON/);
  });

  it('accepts := on anonymous markers', () => {
    expect(
      parseMarkerArguments('+kubebuilder:default:=3', 'kubebuilder:default', {
        kind: 'anonymous',
        arg: { type: anyValue },
      }),
    ).toBe(3);
  });
});

describe('argument values', () => {
  it('reads bare strings up to a delimiter, keeping inner whitespace', () => {
    expect(arg(string, 'some string here!')).toBe('some string here!');
    expect(arg(string, 'aa 0Baaa aaa')).toBe('aa 0Baaa aaa');
    expect(arg(string, '/tmp/tmp-CHECKCRD-0B7LDeoZta')).toBe('/tmp/tmp-CHECKCRD-0B7LDeoZta');
    expect(arg(string, '.0B7LDeoZt')).toBe('.0B7LDeoZt');
    expect(arg(string, '  leading')).toBe('leading');
  });

  it('reads Go double-quoted and raw strings', () => {
    expect(arg(string, '"some; string, \\nhere"')).toBe('some; string, \nhere');
    expect(arg(string, '`some; string, \\nhere`')).toBe('some; string, \\nhere');
    expect(arg(string, '"\\u00e9\\x41"')).toBe('éA');
  });

  it('treats single quotes as ordinary characters, like controller-gen', () => {
    expect(() => arg(string, "'a,b'")).toThrow(/extra arguments/);
  });

  it('reads integers, negative integers and booleans', () => {
    expect(arg(int, '42')).toBe(42);
    expect(arg(int, '-42')).toBe(-42);
    expect(arg(bool, 'false')).toBe(false);
    expect(arg(bool, 'true')).toBe(true);
    expect(() => arg(bool, 'yes')).toThrow(/expected true or false, got "yes"/);
    expect(() => arg(int, '1.5')).toThrow(/expected integer/);
    expect(arg({ kind: 'number' }, '-0.5')).toBe(-0.5);
    expect(arg({ kind: 'number' }, '1e3')).toBe(1000);
  });

  it('reads bare, delimited and nested slices', () => {
    const strs = sliceOf(string);
    expect(arg(strs, "hi;hello;hey y'all")).toEqual(['hi', 'hello', "hey y'all"]);
    expect(arg(strs, "{hi,hello,hey y'all}")).toEqual(['hi', 'hello', "hey y'all"]);
    const nested = sliceOf(sliceOf(int));
    const want = [
      [1, 1],
      [2, 3],
      [5, 8],
    ];
    expect(arg(nested, '{1;1,2;3,5;8}')).toEqual(want);
    expect(arg(nested, '{{1,1},{2,3},{5,8}}')).toEqual(want);
  });

  it('reads maps with bare and quoted keys', () => {
    expect(arg(mapOf(string), '{formal: hello, `informal`: `hi!`}')).toEqual({ formal: 'hello', informal: 'hi!' });
    expect(arg(mapOf(string), '{}')).toEqual({});
  });
});

describe('guessed values (default, example, title, Enum items)', () => {
  const cases: Array<[string, MarkerValue]> = [
    ['some string here!', 'some string here!'],
    ['"some; string, \\nhere"', 'some; string, \nhere'],
    ['42', 42],
    ['-42', -42],
    ['1.5', 1.5],
    ['false', false],
    ['true', true],
    ['truthy', 'truthy'],
    ["hi;hello;hey y'all", ['hi', 'hello', "hey y'all"]],
    ['{hi,hello}', ['hi', 'hello']],
    [
      '{1;1,2;3}',
      [
        [1, 1],
        [2, 3],
      ],
    ],
    [
      '{{1,1},{2,3}}',
      [
        [1, 1],
        [2, 3],
      ],
    ],
    ['{}', {}],
    ['087bdd', '087bdd'],
    ['/tmp/tmp.4paHkdEcpK', '/tmp/tmp.4paHkdEcpK'],
    ['123/config', '123/config'],
    ['0987', '0987'],
    ['100Mi', '100Mi'],
    ['2024-01-15', '2024-01-15'],
    ['sha256:08a7b', 'sha256:08a7b'],
    ['00000000-1234-5678', '00000000-1234-5678'],
    ['123abc', '123abc'],
  ];
  it.each(cases)('%s', (raw, want) => {
    expect(arg(anyValue, raw)).toEqual(want);
  });

  it('guesses non-uniform nested maps', () => {
    expect(
      arg(
        anyValue,
        '{text: "abc", len: 3, "as bytes": 97;98;99, props: {encoding: ascii, nullsafe: true, tags: {"triple", "in a row"}}}',
      ),
    ).toEqual({
      text: 'abc',
      len: 3,
      'as bytes': [97, 98, 99],
      props: { encoding: 'ascii', nullsafe: true, tags: ['triple', 'in a row'] },
    });
  });

  // Found by fuzzing: each level recursed, and `{a:{a:...` some thousands deep ended in a RangeError.
  it('refuses values nested past 32 levels with a syntax error, and reads 32 levels', () => {
    const nested = (n: number): string => `${'{a:'.repeat(n)}1${'}'.repeat(n)}`;
    let want: MarkerValue = 1;
    for (let i = 0; i < 32; i++) want = { a: want };
    expect(arg(anyValue, nested(32))).toEqual(want);
    for (const [type, raw] of [
      [anyValue, nested(20_000)],
      [sliceOf(anyValue), '{'.repeat(20_000)],
      [mapOf(anyValue), nested(33)],
    ] as const) {
      const err = catchError(() => arg(type, raw));
      expect(err).toBeInstanceOf(MarkerSyntaxError);
      expect((err as Error).message).toBe('values nested more than 32 levels deep');
    }
  });

  it('parses each Enum item on its own', () => {
    expect(arg(sliceOf(anyValue), '1;2;"foo"')).toEqual([1, 2, 'foo']);
    expect(arg(sliceOf(anyValue), '{Foo,Bar,3}')).toEqual(['Foo', 'Bar', 3]);
  });
});
