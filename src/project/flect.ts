/**
 * Pluralization compatible with github.com/gobuffalo/flect v1.0.3 `Pluralize`, which kubebuilder applies to the
 * lowercased Kind. Matching it exactly matters: the plural becomes the CRD's resource name, and a project moved
 * between kubebuilder and kubescaffold must keep its resource names.
 */

interface Word {
  singular: string;
  plural?: string;
  alternative?: string;
  unidirectional?: boolean;
  uncountable?: boolean;
  exact?: boolean;
}

// flect's dictionary, in flect's order (the order decides rule priority below).
const dictionary: Word[] = [
  { singular: 'aircraft', plural: 'aircraft' },
  { singular: 'beef', plural: 'beef', alternative: 'beefs' },
  { singular: 'bison', plural: 'bison' },
  { singular: 'blues', plural: 'blues', unidirectional: true },
  { singular: 'chassis', plural: 'chassis' },
  { singular: 'deer', plural: 'deer' },
  { singular: 'fish', plural: 'fish', alternative: 'fishes' },
  { singular: 'moose', plural: 'moose' },
  { singular: 'police', plural: 'police' },
  { singular: 'salmon', plural: 'salmon', alternative: 'salmons' },
  { singular: 'series', plural: 'series' },
  { singular: 'sheep', plural: 'sheep' },
  { singular: 'shrimp', plural: 'shrimp', alternative: 'shrimps' },
  { singular: 'species', plural: 'species' },
  { singular: 'swine', plural: 'swine', alternative: 'swines' },
  { singular: 'trout', plural: 'trout', alternative: 'trouts' },
  { singular: 'tuna', plural: 'tuna', alternative: 'tunas' },
  { singular: 'you', plural: 'you' },
  { singular: 'child', plural: 'children' },
  { singular: 'ox', plural: 'oxen', exact: true },
  { singular: 'foot', plural: 'feet' },
  { singular: 'goose', plural: 'geese' },
  { singular: 'man', plural: 'men' },
  { singular: 'human', plural: 'humans' },
  { singular: 'louse', plural: 'lice', exact: true },
  { singular: 'mouse', plural: 'mice' },
  { singular: 'tooth', plural: 'teeth' },
  { singular: 'woman', plural: 'women' },
  { singular: 'die', plural: 'dice', exact: true },
  { singular: 'person', plural: 'people' },
  { singular: 'adieu', plural: 'adieux', alternative: 'adieus' },
  { singular: 'fabliau', plural: 'fabliaux' },
  { singular: 'bureau', plural: 'bureaus', alternative: 'bureaux' },
  { singular: 'criterion', plural: 'criteria' },
  { singular: 'ganglion', plural: 'ganglia', alternative: 'ganglions' },
  { singular: 'lexicon', plural: 'lexica', alternative: 'lexicons' },
  { singular: 'mitochondrion', plural: 'mitochondria', alternative: 'mitochondrions' },
  { singular: 'noumenon', plural: 'noumena' },
  { singular: 'phenomenon', plural: 'phenomena' },
  { singular: 'taxon', plural: 'taxa' },
  { singular: 'media', plural: 'media' },
  { singular: 'medium', plural: 'media', alternative: 'mediums', unidirectional: true },
  { singular: 'stadium', plural: 'stadiums', alternative: 'stadia' },
  { singular: 'aquarium', plural: 'aquaria', alternative: 'aquariums' },
  { singular: 'auditorium', plural: 'auditoria', alternative: 'auditoriums' },
  { singular: 'symposium', plural: 'symposia', alternative: 'symposiums' },
  { singular: 'curriculum', plural: 'curriculums', alternative: 'curricula' },
  { singular: 'quota', plural: 'quotas' },
  { singular: 'alumnus', plural: 'alumni', alternative: 'alumnuses' },
  { singular: 'bacillus', plural: 'bacilli' },
  { singular: 'cactus', plural: 'cacti', alternative: 'cactuses' },
  { singular: 'coccus', plural: 'cocci' },
  { singular: 'focus', plural: 'foci', alternative: 'focuses' },
  { singular: 'locus', plural: 'loci', alternative: 'locuses' },
  { singular: 'nucleus', plural: 'nuclei', alternative: 'nucleuses' },
  { singular: 'octopus', plural: 'octupuses', alternative: 'octopi' },
  { singular: 'radius', plural: 'radii', alternative: 'radiuses' },
  { singular: 'syllabus', plural: 'syllabi' },
  { singular: 'corpus', plural: 'corpora', alternative: 'corpuses' },
  { singular: 'genus', plural: 'genera' },
  { singular: 'alumna', plural: 'alumnae' },
  { singular: 'vertebra', plural: 'vertebrae' },
  { singular: 'differentia', plural: 'differentiae' },
  { singular: 'minutia', plural: 'minutiae' },
  { singular: 'vita', plural: 'vitae' },
  { singular: 'larva', plural: 'larvae' },
  { singular: 'postcava', plural: 'postcavae' },
  { singular: 'praecava', plural: 'praecavae' },
  { singular: 'uva', plural: 'uvae' },
  { singular: 'apex', plural: 'apices', alternative: 'apexes' },
  { singular: 'codex', plural: 'codices', alternative: 'codexes' },
  { singular: 'index', plural: 'indices', alternative: 'indexes' },
  { singular: 'latex', plural: 'latices', alternative: 'latexes' },
  { singular: 'vertex', plural: 'vertices', alternative: 'vertexes' },
  { singular: 'vortex', plural: 'vortices', alternative: 'vortexes' },
  { singular: 'appendix', plural: 'appendices', alternative: 'appendixes' },
  { singular: 'radix', plural: 'radices', alternative: 'radixes' },
  { singular: 'helix', plural: 'helices', alternative: 'helixes' },
  { singular: 'axis', plural: 'axes', exact: true },
  { singular: 'crisis', plural: 'crises' },
  { singular: 'ellipsis', plural: 'ellipses', unidirectional: true },
  { singular: 'genesis', plural: 'geneses' },
  { singular: 'oasis', plural: 'oases' },
  { singular: 'thesis', plural: 'theses' },
  { singular: 'testis', plural: 'testes' },
  { singular: 'base', plural: 'bases' },
  { singular: 'basis', plural: 'bases', unidirectional: true },
  { singular: 'alias', plural: 'aliases', exact: true },
  { singular: 'vedalia', plural: 'vedalias' },
  { singular: 'use', plural: 'uses', exact: true },
  { singular: 'abuse', plural: 'abuses' },
  { singular: 'cause', plural: 'causes' },
  { singular: 'clause', plural: 'clauses' },
  { singular: 'cruse', plural: 'cruses' },
  { singular: 'excuse', plural: 'excuses' },
  { singular: 'fuse', plural: 'fuses' },
  { singular: 'house', plural: 'houses' },
  { singular: 'misuse', plural: 'misuses' },
  { singular: 'muse', plural: 'muses' },
  { singular: 'pause', plural: 'pauses' },
  { singular: 'ache', plural: 'aches' },
  { singular: 'topaz', plural: 'topazes' },
  { singular: 'buffalo', plural: 'buffaloes', alternative: 'buffalos' },
  { singular: 'potato', plural: 'potatoes' },
  { singular: 'tomato', plural: 'tomatoes' },
  { singular: 'equipment', uncountable: true },
  { singular: 'information', uncountable: true },
  { singular: 'jeans', uncountable: true },
  { singular: 'money', uncountable: true },
  { singular: 'news', uncountable: true },
  { singular: 'rice', uncountable: true },
  { singular: 'dwarf', plural: 'dwarfs', alternative: 'dwarves' },
  { singular: 'hoof', plural: 'hoofs', alternative: 'hooves' },
  { singular: 'thief', plural: 'thieves' },
  { singular: 'chive', plural: 'chives' },
  { singular: 'hive', plural: 'hives' },
  { singular: 'move', plural: 'moves' },
  { singular: 'movie', plural: 'movies' },
  { singular: 'cookie', plural: 'cookies' },
  { singular: 'pretorium', plural: 'pretoriums' },
  { singular: 'agenda', plural: 'agendas' },
  { singular: 'formula', plural: 'formulas', alternative: 'formulae' },
  { singular: 'shoe', plural: 'shoes' },
  { singular: 'toe', plural: 'toes', exact: true },
  { singular: 'graffiti', plural: 'graffiti' },
  { singular: 'ID', plural: 'IDs', exact: true },
];

// flect's suffix rules, highest priority first.
const suffixes: Array<[string, string]> = [
  ['tive', 'tives'],
  ['eaf', 'eaves'],
  ['oaf', 'oaves'],
  ['afe', 'aves'],
  ['arf', 'arves'],
  ['rfe', 'rves'],
  ['rf', 'rves'],
  ['lf', 'lves'],
  ['fe', 'ves'],
  ['ay', 'ays'],
  ['ey', 'eys'],
  ['oy', 'oys'],
  ['quy', 'quies'],
  ['uy', 'uys'],
  ['y', 'ies'],
  ['eau', 'eaux'],
  ['bula', 'bulae'],
  ['dula', 'bulae'],
  ['lula', 'bulae'],
  ['nula', 'bulae'],
  ['vula', 'bulae'],
  ['hedron', 'hedra'],
  ['ium', 'ia'],
  ['seum', 'seums'],
  ['eum', 'ea'],
  ['oum', 'oa'],
  ['stracum', 'straca'],
  ['dum', 'da'],
  ['elum', 'ela'],
  ['ilum', 'ila'],
  ['olum', 'ola'],
  ['ulum', 'ula'],
  ['llum', 'lla'],
  ['ylum', 'yla'],
  ['imum', 'ima'],
  ['ernum', 'erna'],
  ['gnum', 'gna'],
  ['brum', 'bra'],
  ['crum', 'cra'],
  ['terum', 'tera'],
  ['serum', 'sera'],
  ['trum', 'tra'],
  ['antum', 'anta'],
  ['atum', 'ata'],
  ['entum', 'enta'],
  ['etum', 'eta'],
  ['itum', 'ita'],
  ['otum', 'ota'],
  ['utum', 'uta'],
  ['ctum', 'cta'],
  ['ovum', 'ova'],
  ['trix', 'trices'],
  ['iasis', 'iases'],
  ['mesis', 'meses'],
  ['kinesis', 'kineses'],
  ['resis', 'reses'],
  ['gnosis', 'gnoses'],
  ['opsis', 'opses'],
  ['ysis', 'yses'],
  ['ouse', 'ouses'],
  ['lause', 'lauses'],
  ['us', 'uses'],
  ['ch', 'ches'],
  ['io', 'ios'],
  ['sh', 'shes'],
  ['ss', 'sses'],
  ['ez', 'ezzes'],
  ['iz', 'izzes'],
  ['tz', 'tzes'],
  ['zz', 'zzes'],
  ['ano', 'anos'],
  ['lo', 'los'],
  ['to', 'tos'],
  ['oo', 'oos'],
  ['o', 'oes'],
  ['x', 'xes'],
  ['S', 'Ses'],
];

interface Rule {
  suffix: string;
  /** undefined: the word already has the plural suffix and stays as it is. */
  replacement: string | undefined;
}

const singleToPlural = new Map<string, string>();
const pluralToSingle = new Set<string>();
const rules: Rule[] = buildRules();

function buildRules(): Rule[] {
  for (const w of dictionary) {
    const plural = w.plural ?? w.singular;
    singleToPlural.set(w.singular, plural);
    if (!w.unidirectional) {
      pluralToSingle.add(plural);
      if (w.alternative) pluralToSingle.add(w.alternative);
    }
  }
  // flect prepends each rule pair ([plural → itself], [singular → plural]): suffix rules first (in reverse, so they
  // keep their order), then every non-exact dictionary word, so the last dictionary word is tried first.
  const ordered: Rule[] = [];
  for (const [singular, plural] of suffixes)
    ordered.push({ suffix: plural, replacement: undefined }, { suffix: singular, replacement: plural });
  const fromDictionary: Rule[] = [];
  for (const w of dictionary) {
    if (w.exact) continue;
    const plural = w.plural ?? w.singular;
    fromDictionary.unshift({ suffix: plural, replacement: undefined }, { suffix: w.singular, replacement: plural });
  }
  return [...fromDictionary, ...ordered];
}

// flect's acronyms: a word that is one of them is matched against the rules in upper case.
const acronyms = new Set(
  'OK UTF8 HTML JSON JWT ID UUID SQL ACK ACL ADSL AES ANSI API ARP ATM BGP BSS CCITT CHAP CIDR CIR CLI CPE CPU CRC CRT CSMA CMOS DCE DEC DES DHCP DNS DRAM DSL DSLAM DTE DMI EHA EIA EIGRP EOF ESS FCC FCS FDDI FTP GBIC GEPOF HDLC HTTP HTTPS IANA ICMP IDF IDS IEEE IETF IMAP IP IPS ISDN ISP LACP LAN LAPB LAPF LLC MAC MC MDF MIB MPLS MTU NAC NAT NBMA NIC NRZ NRZI NVRAM OSI OSPF OUI PAP PAT PC PIM PCM PDU POP3 POTS PPP PPTP PTT PVST RAM RARP RFC RIP RLL ROM RSTP RTP RCP SDLC SFD SFP SLARP SLIP SMTP SNA SNAP SNMP SOF SRAM SSH SSID STP SYN TDM TFTP TIA TOFU UDP URL URI USB UTP VC VLAN VLSM VPN W3C WAN WEP WPA WWW'.split(
    ' ',
  ),
);

/**
 * flect.Pluralize for one lowercase word (kubebuilder passes the lowercased Kind, which flect sees as one part).
 * Quirks are kept on purpose: an acronym is matched in upper case but its suffix replaced in the original, so
 * "dns" becomes "dnsDNSes" and "ssh" becomes "sshs", exactly as kubebuilder would name them.
 */
export function pluralize(original: string): string {
  if (original.length === 0) return '';
  const part = acronyms.has(original.toUpperCase()) ? original.toUpperCase() : original;
  const replaceSuffix = (suffix: string, replacement: string): string =>
    (original.endsWith(suffix) ? original.slice(0, original.length - suffix.length) : original) + replacement;

  const exact = singleToPlural.get(original);
  if (exact !== undefined) return exact;
  if (pluralToSingle.has(original)) return original;
  const lower = part.toLowerCase();
  if (pluralToSingle.has(lower)) return original;
  const fromLower = singleToPlural.get(lower);
  if (fromLower !== undefined) {
    const capitalized = part.charAt(0).toUpperCase() + part.slice(1);
    return replaceSuffix(
      part,
      part === capitalized ? fromLower.charAt(0).toUpperCase() + fromLower.slice(1) : fromLower,
    );
  }
  for (const rule of rules) {
    if (part.endsWith(rule.suffix)) {
      const plural =
        rule.replacement === undefined ? part : part.slice(0, part.length - rule.suffix.length) + rule.replacement;
      return replaceSuffix(part, plural);
    }
  }
  if (lower.endsWith('s')) return original;
  return original + 's';
}
