import type { CatalogLanguage } from "../languages.ts";
import type { Messages } from "../messages.ts";
import { ar } from "./ar.ts";
import { de } from "./de.ts";
import { en } from "./en.ts";
import { es } from "./es.ts";
import { fr } from "./fr.ts";
import { hi } from "./hi.ts";
import { it } from "./it.ts";
import { jp } from "./jp.ts";
import { ko } from "./ko.ts";
import { pt } from "./pt.ts";
import { ru } from "./ru.ts";
import { uk } from "./uk.ts";
import { zhHans } from "./zh-hans.ts";
import { zhHant } from "./zh-hant.ts";

/** Every catalog language's texts: a language missing here, or a key missing in one, fails tsc. */
export const CATALOG: Readonly<Record<CatalogLanguage, Messages>> = {
  en,
  fr,
  es,
  ru,
  "zh-Hans": zhHans,
  "zh-Hant": zhHant,
  ar,
  de,
  jp,
  pt,
  hi,
  ko,
  it,
  uk,
};
