import type { Messages } from "../messages.ts";

export const de: Messages = {
  noAnswer: "(keine Antwort)",
  truncated: "(gekürzt)",
  failed: "⚠️ {reason}",
  answerCut: "Antwort abgebrochen: {reason}",
  numberInLine:
    "⏳ gerade sind viele Fragen offen: Ihre ist Nummer {place, number} in der Warteschlange",
  busy: "⏳ Der Bot ist gerade ausgelastet: Bitte versuchen Sie es in einer Minute noch einmal.",

  errorUnexpected: "beim Bot ist etwas schiefgelaufen",
  errorApiKey: "der Chatbot hat den API-Schlüssel abgelehnt ({status})",
  errorPermission:
    "der Chatbot hat den Zugriff verweigert ({status}): Chatten erfordert ein kostenpflichtiges Abo im Chatbot-Konto",
  errorNotFound:
    "der Chatbot wurde nicht gefunden ({status}): Prüfen Sie die Basis-URL und die Bot-ID",
  errorBackendBusy:
    "der Chatbot ist überlastet ({status}); bitte versuchen Sie es gleich noch einmal",
  errorBackendFailed:
    "der Chatbot-Dienst ist ausgefallen ({status}); bitte versuchen Sie es später noch einmal",
  errorBackendRefused: "der Chatbot hat die Anfrage abgelehnt ({status})",
  errorApi: "der Chatbot hat einen Fehler gemeldet (Code {code})",
  errorApiDetail: "der Chatbot hat einen Fehler gemeldet (Code {code}): {detail}",
  errorProtocol: "der Chatbot hat eine Antwort geschickt, die dieser Bot nicht lesen kann",
  errorNoResponse: "der Chatbot hat nicht rechtzeitig geantwortet",
  errorSilent: "der Chatbot sendet nicht mehr",
  errorTooLong: "der Chatbot hat länger als {duration} gebraucht",
  errorUnreachable: "der Chatbot ist nicht erreichbar",
  errorConnectionLost: "Verbindung unterbrochen",
  errorInterrupted: "unterbrochen",
  errorStore:
    "der Speicher des Bots ist gerade nicht verfügbar; bitte versuchen Sie es gleich noch einmal",
  errorPlatformRateLimit: "die Chat-Plattform hat den Bot gebeten, langsamer zu machen",
  errorCannotPost: "der Bot darf hier nicht schreiben",
  errorCannotPostBecause: "der Bot darf hier nicht schreiben ({error})",
  errorRestarting:
    "der Bot startet neu und ist nicht mehr zu Ihrer Frage gekommen: Bitte stellen Sie sie in einer Minute noch einmal",
  errorSlackRefused: "Slack hat die Antwort abgelehnt ({error})",
  errorSlackAdminCheck: "konnte nicht prüfen, ob Sie Workspace-Admin sind ({error})",
  errorTelegramRefused: "Telegram hat die Anfrage des Bots abgelehnt ({error})",
  errorTelegramUnreachable:
    "der Bot konnte Telegram nicht erreichen; bitte versuchen Sie es gleich noch einmal",
  errorTelegramAdminCheck:
    "konnte bei Telegram nicht prüfen, ob Sie hier Admin sind; bitte versuchen Sie es noch einmal",

  channelNotEnabled: "Dieser Bot ist in diesem Kanal nicht freigeschaltet.",
  userNotAllowed:
    "Leider stehen Sie nicht auf der Liste der Personen, die diesen Bot nutzen dürfen.",
  emptyQuestion: "Bitte schreiben Sie eine Frage.",
  questionTooLong:
    "Ihre Frage ist {length, number} Zeichen lang; erlaubt sind {limit, number}. Bitte kürzen Sie sie.",
  slowDown:
    "Langsamer bitte: Sie können {count, plural, one {# Frage} other {# Fragen}} in {window, number} s stellen. Versuchen Sie es in {seconds, number} s noch einmal.",
  onlyText: "Ich kann nur Textnachrichten lesen: Bitte schreiben Sie Ihre Frage.",

  helpIntro: "Fragen Sie mich, was Sie möchten, oder nutzen Sie einen Befehl:",
  helpLine: "{usage}  {what}",
  helpHelp: "zeigt die Befehle",
  helpNew: "beginnt in diesem Thread eine neue Unterhaltung",
  helpLanguage: "zeigt die Antwortsprache dieses Kanals",
  helpLanguageSet: "ändert sie (Admins; {auto} setzt sie zurück)",
  helpLeads: "zeigt die Leads der letzten Tage (Standard: {days, number}), in einem Lead-Kanal",
  helpLeadsSubscribe: "kündigt neue Leads hier an (Admins); {unsubscribe} beendet das",
  unknownCommand: "Unbekannter Befehl {command}.",
  newConversation: "Neuer Anfang: Ihre nächste Frage beginnt eine neue Unterhaltung.",
  newOutsideThread:
    "Hier ist jeder Thread eine eigene Unterhaltung: Beginnen Sie einen neuen Thread (erwähnen Sie mich oder schicken Sie mir eine neue Nachricht), oder schreiben Sie {new} nach einer Erwähnung in einem Thread.",
  languageNamed: "{name} ({code})",
  languageAuto: "die Sprache der jeweiligen Frage ({code})",
  languageShown: "Antworten kommen hier auf {language}. Admins können das mit {command} ändern.",
  languageShownDefault:
    "Antwortsprache hier: {language}, die Voreinstellung. Admins können das mit {command} ändern.",
  languageSet: "Antworten kommen hier ab jetzt auf {language}.",
  languageReset: "Antwortsprache zurückgesetzt, jetzt hier: {language}.",
  languageAdminOnly: "Nur Admins dieses Kanals können die Antwortsprache ändern.",
  languageUnknown: "unbekannter Sprachcode. Gültige Codes: {codes}",

  leadsUsage: "erwartet: {list}, {days} (1 bis {max, number}), {subscribe} oder {unsubscribe}",
  leadsNotSetUp: "Lead-Ankündigungen sind für diesen Bot nicht eingerichtet.",
  leadsAdminOnly: "Nur die Admins des Bots können Lead-Ankündigungen ein- oder ausschalten.",
  leadsOnlyInLeadChannels:
    "Leads werden nur in Lead-Kanälen angezeigt. Ein Admin des Bots kann diesen Kanal mit {command} zu einem Lead-Kanal machen.",
  leadsNone: "Keine Leads {days, plural, one {am letzten Tag} other {in den letzten # Tagen}}.",
  leadsTooManyToCount:
    "Zu viele Leads zum Zählen: Der Bot liest höchstens {read, number} auf einmal, und alle gelesenen sind älter als {days, plural, one {ein Tag} other {# Tage}}.",
  leadsTitle:
    "{count, plural, one {# Lead} other {# Leads}} {days, plural, one {am letzten Tag} other {in den letzten # Tagen}}, die neuesten zuerst:",
  leadsTitleAtLeast:
    "Mindestens {count, plural, one {# Lead} other {# Leads}} {days, plural, one {am letzten Tag} other {in den letzten # Tagen}} (mehr, als der Bot auf einmal liest), die neuesten zuerst:",
  leadsMoreAtLeast: "…und mindestens {count, number} weitere.",
  leadsMoreOlder: "…und {count, plural, one {# älterer} other {# ältere}}.",
  leadLine: "• {time}: {name} · {phone} · {email}",
  leadLineRemark: "• {time}: {name} · {phone} · {email} — „{remark}“",
  leadsConfigured:
    "Dieser Kanal bekommt Leads über die Konfiguration des Bots ({variables}); ändern Sie es dort.",
  leadsSubscribed: "Dieser Kanal bekommt ab jetzt jeden neuen Lead.",
  leadsAlreadySubscribed: "Dieser Kanal bekommt bereits jeden neuen Lead.",
  leadsUnsubscribed: "Dieser Kanal bekommt keine Lead-Ankündigungen mehr.",
  leadsNotSubscribed: "Dieser Kanal hat keine Lead-Ankündigungen bekommen.",
  leadTitle: "Neuer Lead",
  leadFallback: "Neuer Lead: {name}",
  leadName: "Name",
  leadPhone: "Telefon",
  leadEmail: "E-Mail",
  leadRemark: "Anmerkung",
  leadTime: "Zeit",
  leadConversation: "Unterhaltung",
  leadCaptured: "Erfasst",
  leadCapturedOutside: "außerhalb der Chats dieses Bots",
  leadCapturedPrivate: "in einem privaten {platform}-Chat mit {name}",
  leadCapturedBusiness: "im {platform}-Chat des Business-Kontos mit {name}",
  leadCapturedPrivateUnnamed: "in einem privaten {platform}-Chat",
  leadCapturedThreadUnnamed: "in einem {platform}-Thread",
  leadCapturedGroupUnnamed: "in einer {platform}-Gruppe",
  leadCapturedThread: "in einem {platform}-Thread in {where}",
  leadCapturedGroup: "in der {platform}-Gruppe {where}",

  assistantGreeting:
    "Hallo! Fragen Sie mich, was Sie möchten. Jeder Thread hier ist eine eigene Unterhaltung; {command} zeigt die Befehle.",
  promptAbilities: "Was kannst du?",
  promptStart: "Wo fange ich an?",
  promptSimpleTitle: "Einfach erklärt",
  promptSimple: "Erkläre in ein paar einfachen Sätzen, worüber du Bescheid weißt.",
  statusThinking: "denkt nach…",

  contextThread: "Bisher in diesem Thread:",
  contextReply: "Als Antwort auf:",
  contextQuestion: "Frage:",

  menuHelp: "Befehle anzeigen",
  menuNew: "Hier eine neue Unterhaltung beginnen",
  menuLanguage: "Antwortsprache anzeigen (Admins: {command})",
  menuLeads: "Neue Leads anzeigen; {command} kündigt sie hier an",

  consoleThinking: "denkt nach…",
  consoleWelcome:
    "Chatten Sie mit dem Chatbot: Stellen Sie eine Frage, oder {command} für die Befehle.",
  consoleSimulated:
    "(Die Antworten kommen vom eingebauten simulierten Chatbot: Setzen Sie {url}, {key} und {uid}, um Ihren eigenen zu verwenden.)",
  consoleKeys:
    "{stop} bricht eine Antwort ab; an der Eingabe beendet {stop} oder {quit} das Programm.",
  consoleDropped:
    "({count, plural, one {# während der Antwort getippte Zeile wurde verworfen} other {# während der Antwort getippte Zeilen wurden verworfen}})",
  stoppedBy: "⏹ angehalten von {name}",
  stopped: "⏹ angehalten",
  nothingToStop: "Nichts anzuhalten: In diesem Thread wird gerade keine Antwort geschrieben.",
  withdrawnBy: "⏹ zurückgezogen von {name}: Diese Frage wird nicht beantwortet",
  withdrawn: "⏹ zurückgezogen: Diese Frage wird nicht beantwortet",
  questionWithdrawn:
    "⏹ {count, plural, one {Deine wartende Frage wurde zurückgezogen.} other {# wartende Fragen wurden zurückgezogen.}}",
  stopUsage: "erwartet: {stop}",
  stopRefused:
    "Nur die Person, die gefragt hat, oder ein Admin dieses Kanals kann diese Antwort anhalten.",
  stopButton: "⏹ Anhalten",
  voteThanks: "Danke für Ihr {mark}!",
  voteChanged: "Ihre Stimme ist jetzt {mark}. Danke!",
  voteTooLate: "Diese Antwort ist zu alt, um sie zu bewerten.",
  feedbackAdminOnly: "Nur ein Admin dieses Kanals kann das Feedback sehen.",
  feedbackUsage: "erwartet: {list} oder {days} (1 bis {max, number})",
  feedbackNoneHere:
    "Keine Bewertungen von Antworten in diesem Kanal {days, plural, one {am letzten Tag} other {in den letzten # Tagen}}.",
  feedbackNoneAll:
    "Keine Bewertungen von Antworten in irgendeinem Kanal {days, plural, one {am letzten Tag} other {in den letzten # Tagen}}.",
  feedbackHere:
    "Bewertungen von Antworten in diesem Kanal {days, plural, one {am letzten Tag} other {in den letzten # Tagen}}: 👍 {up, number} · 👎 {down, number} ({share, number, percent} 👍)",
  feedbackAll:
    "Bewertungen von Antworten in allen Kanälen {days, plural, one {am letzten Tag} other {in den letzten # Tagen}}: 👍 {up, number} · 👎 {down, number} ({share, number, percent} 👍)",
  helpStop:
    "hält die Antwort an, die in diesem Thread geschrieben wird (wer gefragt hat oder ein Admin)",
  helpFeedback:
    "zählt die 👍 und 👎 unter den Antworten hier (Admins; Standard: {days, plural, one {# Tag} other {# Tage}})",
  menuStop: "Die laufende Antwort anhalten (in Gruppen: darauf antworten)",
  menuFeedback: "Die 👍 und 👎 unter den Antworten hier zählen",
  claimButton: "Übernehme ich",
  releaseButton: "Freigeben",
  claimedBy: "Übernommen von {name} am {time}",
  alreadyClaimed: "{name} hat diesen Lead schon übernommen, am {time}.",
  youHaveIt: "Sie haben diesen Lead bereits.",
  onlyClaimerReleases: "Diesen Lead hat {name} übernommen: Nur diese Person kann ihn freigeben.",
  notClaimed: "Diesen Lead hat gerade niemand.",
  claimUnavailable: "Dieser Lead kann hier nicht mehr übernommen werden.",
  claimTryAgain: "Der Lead hat gerade den Besitzer gewechselt: Bitte versuchen Sie es noch einmal.",
  listedClaim: "übernommen von {name} ({time})",
  leadLabel: "{label}:",

  chatbotFailed: "{chatbot}: {reason}",
  helpChatbot: "zeigt, welcher Chatbot hier antwortet, und die anderen",
  helpChatbotUse: "schickt neue Unterhaltungen hier an diesen Chatbot (Admins)",
  helpLeadsSubscribeChatbot: "kündigt die neuen Leads dieses Chatbots hier an (Admins)",
  menuChatbot: "Den Chatbot dieses Chats anzeigen (Admins: {command})",
  chatbotShown:
    "Fragen hier gehen an {chatbot}. Chatbots: {list}. Admins können das mit {command} ändern.",
  chatbotShownDefault:
    "Fragen hier gehen an {chatbot}, die Voreinstellung. Chatbots: {list}. Admins können das mit {command} ändern.",
  chatbotSet:
    "Neue Unterhaltungen gehen hier ab jetzt an {chatbot}. Eine laufende Unterhaltung bleibt bei ihrem Chatbot; {new} beginnt eine neue.",
  chatbotAdminOnly: "Nur Admins dieses Kanals können seinen Chatbot wählen.",
  chatbotUnknown: "Kein Chatbot heißt {name}. Chatbots: {list}.",
  chatbotUsage: "erwartet: {show} oder {use}",
  chatbotHere: "Chatbot dieses Kanals: {chatbot}.",
  leadsSubscribedTo: "Dieser Kanal bekommt ab jetzt die neuen Leads von {chatbot}.",
  leadsAlreadySubscribedTo: "Dieser Kanal bekommt bereits die neuen Leads von {chatbot}.",
  leadsUnsubscribedFrom: "Dieser Kanal bekommt keine Leads von {chatbot} mehr.",
  leadsNotSubscribedTo: "Dieser Kanal hat keine Leads von {chatbot} bekommen.",
  leadsOf: "Leads von {chatbot}:",
  leadChatbot: "Chatbot",
  feedbackOfChatbot: "{chatbot}: 👍 {up, number} · 👎 {down, number}",

  // A person of the company talks with a lead's customer through the bot (a hand-over): the
  // card's buttons and lines, what the customer is told, the lines relayed, the private replies.
  talkButton: "Chat übernehmen",
  handBackButton: "Zurückgeben",
  handoverTalking: "{name} spricht mit dem Lead (seit {time})",
  handoverHandedBack: "Am {time} an den Chatbot zurückgegeben",
  handoverJoined:
    "{name} aus unserem Team ist diesem Chat beigetreten. Der Chatbot pausiert, bis der Chat an ihn zurückgegeben wird.",
  handoverEnded: "In diesem Chat antwortet wieder der Chatbot.",
  handoverCustomerLine: "💬 {name}: {text}",
  handoverCustomer: "Kunde",
  handoverSellerLine: "{name} (Vertrieb): {text}",
  pausedBy: "⏹ pausiert: {name} aus dem Vertrieb hat übernommen",
  handoverOnlyClaimer:
    "Diesen Lead hat {name} übernommen: Nur diese Person oder ein Admin des Bots kann mit diesem Kunden sprechen.",
  handoverClaimFirst: "Übernehmen Sie zuerst den Lead: Dann können Sie mit ihm sprechen.",
  handoverNotOurs:
    "Die Unterhaltung dieses Leads läuft in keinem Chat, den dieser Bot erreichen kann.",
  handoverBusy: "{name} spricht bereits im Chat dieses Kunden.",
  handoverNotOpen: "Gerade spricht niemand mit diesem Kunden.",
  handoverOver: "Dieser Chat ist wieder beim Chatbot: Ihre Nachricht wurde nicht gesendet.",
  handoverNotDelivered: "Nicht zugestellt: {reason}",
  handBackNone: "In diesem Chat spricht gerade niemand aus dem Unternehmen.",
  handBackAdminOnly: "Nur Admins dieses Chats können ihn an den Chatbot zurückgeben.",
  helpHandBack:
    "gibt einen Chat, den jemand aus dem Unternehmen übernommen hat, an den Chatbot zurück (Admins)",
  menuHandBack: "Diesen Chat an den Chatbot zurückgeben",
};
