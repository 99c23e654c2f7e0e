import type { Messages } from "../messages.ts";

export const it: Messages = {
  noAnswer: "(nessuna risposta)",
  truncated: "(troncata)",
  failed: "⚠️ {reason}",
  answerCut: "risposta troncata: {reason}",
  numberInLine:
    "⏳ ci sono molte domande in questo momento: la tua è la numero {place, number} in coda",
  busy: "⏳ Il bot è molto occupato in questo momento: riprova tra un minuto.",

  errorUnexpected: "qualcosa è andato storto nel bot",
  errorApiKey: "il chatbot ha rifiutato la chiave API ({status})",
  errorPermission:
    "il chatbot ha negato l’accesso ({status}): per chattare serve un abbonamento a pagamento sull’account del chatbot",
  errorNotFound: "chatbot non trovato ({status}): controlla l’URL di base e l’ID del bot",
  errorBackendBusy: "il chatbot è sovraccarico ({status}); riprova tra poco",
  errorBackendFailed: "il servizio del chatbot non ha funzionato ({status}); riprova più tardi",
  errorBackendRefused: "il chatbot ha rifiutato la richiesta ({status})",
  errorApi: "il chatbot ha restituito un errore (codice {code})",
  errorApiDetail: "il chatbot ha restituito un errore (codice {code}): {detail}",
  errorProtocol: "il chatbot ha inviato una risposta che questo bot non sa leggere",
  errorNoResponse: "il chatbot non ha risposto in tempo",
  errorSilent: "il chatbot ha smesso di inviare",
  errorTooLong: "il chatbot ha impiegato più di {duration}",
  errorUnreachable: "impossibile raggiungere il chatbot",
  errorConnectionLost: "connessione persa",
  errorInterrupted: "interrotta",
  errorStore: "l’archivio del bot non è disponibile in questo momento; riprova tra poco",
  errorPlatformRateLimit: "la piattaforma di chat ha chiesto al bot di rallentare",
  errorCannotPost: "il bot non può scrivere qui",
  errorCannotPostBecause: "il bot non può scrivere qui ({error})",
  errorRestarting:
    "il bot si sta riavviando e non è arrivato alla tua domanda: ripetila tra un minuto",
  errorSlackRefused: "Slack ha rifiutato la risposta ({error})",
  errorSlackAdminCheck:
    "impossibile verificare se sei amministratore dello spazio di lavoro ({error})",
  errorTelegramRefused: "Telegram ha rifiutato la richiesta del bot ({error})",
  errorTelegramUnreachable: "il bot non è riuscito a raggiungere Telegram; riprova tra poco",
  errorTelegramAdminCheck: "impossibile verificare con Telegram se sei amministratore qui; riprova",

  channelNotEnabled: "Questo bot non è attivo in questo canale.",
  userNotAllowed: "Spiacente, non sei nell’elenco delle persone che possono usare questo bot.",
  emptyQuestion: "Scrivi una domanda, per favore.",
  questionTooLong:
    "La tua domanda è lunga {length, number} caratteri; il limite è {limit, number}. Accorciala, per favore.",
  slowDown:
    "Con calma: puoi fare {count, plural, one {# domanda} other {# domande}} ogni {window, number} s. Riprova tra {seconds, number} s.",
  onlyText: "So leggere solo messaggi di testo: scrivi la tua domanda, per favore.",

  helpIntro: "Chiedimi quello che vuoi, oppure usa un comando:",
  helpLine: "{usage}  {what}",
  helpHelp: "elenca i comandi",
  helpNew: "inizia una nuova conversazione in questo thread",
  helpLanguage: "mostra la lingua delle risposte di questo canale",
  helpLanguageSet: "la cambia (amministratori; {auto} la reimposta)",
  helpLeads:
    "elenca i lead degli ultimi giorni (predefinito {days, number}), in un canale dei lead",
  helpLeadsSubscribe: "annuncia qui i nuovi lead (amministratori); {unsubscribe} smette",
  unknownCommand: "Comando sconosciuto: {command}.",
  newConversation: "Si ricomincia: la tua prossima domanda apre una nuova conversazione.",
  newOutsideThread:
    "Qui ogni thread è una conversazione a sé: apri un nuovo thread (menzionami o mandami un nuovo messaggio) per ricominciare, oppure scrivi {new} dopo una menzione dentro un thread.",
  languageNamed: "{name} ({code})",
  languageAuto: "la lingua di ogni domanda ({code})",
  languageShown:
    "Qui le risposte sono in {language}. Gli amministratori possono cambiarla con {command}.",
  languageShownDefault:
    "Lingua delle risposte qui: {language}, quella predefinita. Gli amministratori possono cambiarla con {command}.",
  languageSet: "D’ora in poi qui le risposte sono in {language}.",
  languageReset: "Lingua delle risposte reimpostata, ora qui: {language}.",
  languageAdminOnly:
    "Solo un amministratore di questo canale può cambiare la lingua delle risposte.",
  languageUnknown: "codice di lingua sconosciuto. Codici validi: {codes}",

  leadsUsage: "previsto: {list}, {days} (da 1 a {max, number}), {subscribe} o {unsubscribe}",
  leadsNotSetUp: "Gli annunci dei lead non sono configurati per questo bot.",
  leadsAdminOnly:
    "Solo gli amministratori del bot possono attivare o disattivare gli annunci dei lead.",
  leadsOnlyInLeadChannels:
    "I lead si vedono solo nei canali dei lead. Un amministratore del bot può renderlo un canale dei lead con {command}.",
  leadsNone: "Nessun lead {days, plural, one {nell’ultimo giorno} other {negli ultimi # giorni}}.",
  leadsTooManyToCount:
    "Troppi lead da contare: il bot ne legge al massimo {read, number} alla volta, e quelli letti sono tutti più vecchi {days, plural, one {dell’ultimo giorno} other {degli ultimi # giorni}}.",
  leadsTitle:
    "{count, plural, one {# lead} other {# lead}} {days, plural, one {nell’ultimo giorno} other {negli ultimi # giorni}}, dal più recente:",
  leadsTitleAtLeast:
    "Almeno {count, plural, one {# lead} other {# lead}} {days, plural, one {nell’ultimo giorno} other {negli ultimi # giorni}} (più di quanti il bot ne legga in una volta), dal più recente:",
  leadsMoreAtLeast: "…e almeno altri {count, number}.",
  leadsMoreOlder: "…e {count, plural, one {# più vecchio} other {altri # più vecchi}}.",
  leadLine: "• {time}: {name} · {phone} · {email}",
  leadLineRemark: "• {time}: {name} · {phone} · {email} — «{remark}»",
  leadsConfigured:
    "Questo canale riceve i lead dalla configurazione del bot ({variables}); va cambiato lì.",
  leadsSubscribed: "D’ora in poi questo canale riceve ogni nuovo lead.",
  leadsAlreadySubscribed: "Questo canale riceve già ogni nuovo lead.",
  leadsUnsubscribed: "Questo canale non riceve più gli annunci dei lead.",
  leadsNotSubscribed: "Questo canale non riceveva gli annunci dei lead.",
  leadTitle: "Nuovo lead",
  leadFallback: "Nuovo lead: {name}",
  leadName: "Nome",
  leadPhone: "Telefono",
  leadEmail: "E-mail",
  leadRemark: "Nota",
  leadTime: "Ora",
  leadConversation: "Conversazione",
  leadCaptured: "Raccolto",
  leadCapturedOutside: "fuori dalle chat di questo bot",
  leadCapturedPrivate: "in una chat privata {platform} con {name}",
  leadCapturedBusiness: "nella chat {platform} dell’account aziendale con {name}",
  leadCapturedPrivateUnnamed: "in una chat privata {platform}",
  leadCapturedThreadUnnamed: "in un thread {platform}",
  leadCapturedGroupUnnamed: "in un gruppo {platform}",
  leadCapturedThread: "in un thread {platform} in {where}",
  leadCapturedGroup: "nel gruppo {platform} {where}",

  assistantGreeting:
    "Ciao! Chiedimi quello che vuoi. Qui ogni thread è una conversazione a sé; {command} elenca i comandi.",
  promptAbilities: "Cosa sai fare?",
  promptStart: "Da dove comincio?",
  promptSimpleTitle: "Spiegalo in modo semplice",
  promptSimple: "Spiega in poche frasi semplici di cosa ti intendi.",
  statusThinking: "sta pensando…",

  contextThread: "In precedenza in questo thread:",
  contextReply: "In risposta a:",
  contextQuestion: "Domanda:",

  menuHelp: "Elenca i comandi",
  menuNew: "Inizia qui una nuova conversazione",
  menuLanguage: "Mostra la lingua delle risposte (amministratori: {command})",
  menuLeads: "Elenca i lead recenti; {command} li annuncia qui",

  consoleThinking: "sto pensando…",
  consoleWelcome: "Chatta con il chatbot: scrivi una domanda, oppure {command} per i comandi.",
  consoleSimulated:
    "(Le risposte arrivano dal chatbot simulato integrato: imposta {url}, {key} e {uid} per usare il tuo.)",
  consoleKeys: "{stop} interrompe una risposta; al prompt, {stop} o {quit} esce.",
  consoleDropped:
    "({count, plural, one {# riga scritta durante la risposta è stata scartata} other {# righe scritte durante la risposta sono state scartate}})",
  stoppedBy: "⏹ interrotta da {name}",
  stopped: "⏹ interrotta",
  nothingToStop: "Niente da interrompere: in questo thread non si sta scrivendo nessuna risposta.",
  withdrawnBy: "⏹ ritirata da {name}: questa domanda non riceverà risposta",
  withdrawn: "⏹ ritirata: questa domanda non riceverà risposta",
  questionWithdrawn:
    "⏹ {count, plural, one {La tua domanda in attesa è stata ritirata.} other {# domande in attesa sono state ritirate.}}",
  stopUsage: "previsto {stop}",
  stopRefused:
    "Solo chi ha fatto la domanda o un amministratore di questo canale può interrompere questa risposta.",
  stopButton: "⏹ Interrompi",
  voteThanks: "Grazie per il tuo {mark}!",
  voteChanged: "Ora il tuo voto è {mark}. Grazie!",
  voteTooLate: "Questa risposta è troppo vecchia per essere valutata.",
  feedbackAdminOnly: "Solo un amministratore di questo canale può vedere i feedback.",
  feedbackUsage: "previsto {list} o {days} (da 1 a {max, number})",
  feedbackNoneHere:
    "Nessun voto sulle risposte di questo canale {days, plural, one {nell’ultimo giorno} other {negli ultimi # giorni}}.",
  feedbackNoneAll:
    "Nessun voto sulle risposte in alcun canale {days, plural, one {nell’ultimo giorno} other {negli ultimi # giorni}}.",
  feedbackHere:
    "Voti sulle risposte di questo canale {days, plural, one {nell’ultimo giorno} other {negli ultimi # giorni}}: 👍 {up, number} · 👎 {down, number} ({share, number, percent} 👍)",
  feedbackAll:
    "Voti sulle risposte di tutti i canali {days, plural, one {nell’ultimo giorno} other {negli ultimi # giorni}}: 👍 {up, number} · 👎 {down, number} ({share, number, percent} 👍)",
  helpStop: "interrompe la risposta in corso in questo thread (chi ha chiesto o un amministratore)",
  helpFeedback:
    "conta i 👍 e 👎 sulle risposte qui (amministratori; predefinito {days, plural, one {# giorno} other {# giorni}})",
  menuStop: "Interrompi la risposta in corso (in un gruppo, rispondile)",
  menuFeedback: "Conta i 👍 e 👎 sulle risposte qui",
  claimButton: "Me ne occupo io",
  releaseButton: "Rilascia",
  claimedBy: "Preso in carico da {name} il {time}",
  alreadyClaimed: "{name} si è già preso questo lead, il {time}.",
  youHaveIt: "Questo lead è già tuo.",
  onlyClaimerReleases: "Solo {name}, che ha preso questo lead, può rilasciarlo.",
  notClaimed: "Al momento nessuno ha questo lead.",
  claimUnavailable: "Questo lead non può più essere preso in carico qui.",
  claimTryAgain: "Il lead ha appena cambiato mano: riprova.",
  listedClaim: "preso in carico da {name} ({time})",
  leadLabel: "{label}:",

  chatbotFailed: "{chatbot}: {reason}",
  helpChatbot: "mostra quale chatbot risponde qui, e gli altri",
  helpChatbotUse: "manda a quel chatbot le nuove conversazioni di qui (amministratori)",
  helpLeadsSubscribeChatbot: "annuncia qui i nuovi lead di quel chatbot (amministratori)",
  menuChatbot: "Mostra il chatbot di questa chat (amministratori: {command})",
  chatbotShown:
    "Le domande di qui vanno a {chatbot}. Chatbot: {list}. Gli amministratori possono cambiarlo con {command}.",
  chatbotShownDefault:
    "Le domande di qui vanno a {chatbot}, quello predefinito. Chatbot: {list}. Gli amministratori possono cambiarlo con {command}.",
  chatbotSet:
    "D’ora in poi le nuove conversazioni di qui vanno a {chatbot}. Una conversazione in corso resta con il suo chatbot; {new} ne inizia una nuova.",
  chatbotAdminOnly: "Solo un amministratore di questo canale può sceglierne il chatbot.",
  chatbotUnknown: "Nessun chatbot si chiama {name}. Chatbot: {list}.",
  chatbotUsage: "previsto: {show} o {use}",
  chatbotHere: "Chatbot di questo canale: {chatbot}.",
  leadsSubscribedTo: "Questo canale riceve ora i nuovi lead di {chatbot}.",
  leadsAlreadySubscribedTo: "Questo canale riceve già i nuovi lead di {chatbot}.",
  leadsUnsubscribedFrom: "Questo canale non riceve più i lead di {chatbot}.",
  leadsNotSubscribedTo: "Questo canale non riceveva i lead di {chatbot}.",
  leadsOf: "Lead di {chatbot}:",
  leadChatbot: "Chatbot",
  feedbackOfChatbot: "{chatbot}: 👍 {up, number} · 👎 {down, number}",

  // A person of the company talks with a lead's customer through the bot (a hand-over): the
  // card's buttons and lines, what the customer is told, the lines relayed, the private replies.
  talkButton: "Intervieni",
  handBackButton: "Restituisci",
  handoverTalking: "{name} sta parlando con il cliente (dal {time})",
  handoverHandedBack: "Restituita al chatbot il {time}",
  handoverJoined:
    "{name} del nostro team ora è in questa chat. Il chatbot è in pausa finché la chat non gli viene restituita.",
  handoverEnded: "In questa chat risponde di nuovo il chatbot.",
  handoverCustomerLine: "💬 {name}: {text}",
  handoverCustomer: "Cliente",
  handoverSellerLine: "{name} (Ufficio commerciale): {text}",
  pausedBy: "⏹ in pausa: {name} dell’ufficio commerciale ha preso in mano la conversazione",
  handoverOnlyClaimer:
    "Solo {name}, che ha preso questo lead, o un amministratore del bot può parlare con questo cliente.",
  handoverClaimFirst: "Prendi prima il lead: poi potrai parlare con il cliente.",
  handoverNotOurs:
    "La conversazione di questo lead non si trova in una chat raggiungibile da questo bot.",
  handoverBusy: "{name} sta già parlando nella chat di questo cliente.",
  handoverNotOpen: "Al momento nessuno sta parlando con questo cliente.",
  handoverOver: "Questa chat è tornata al chatbot: il tuo messaggio non è stato inviato.",
  handoverNotDelivered: "Non consegnato: {reason}",
  handBackNone: "In questa chat non sta parlando nessuno dell’azienda.",
  handBackAdminOnly: "Solo un amministratore di questa chat può restituirla al chatbot.",
  helpHandBack:
    "restituisce al chatbot una chat presa in mano da qualcuno dell’azienda (amministratori)",
  menuHandBack: "Restituisci questa chat al chatbot",
};
