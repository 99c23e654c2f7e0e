import type { Messages } from "../messages.ts";

export const fr: Messages = {
  noAnswer: "(pas de réponse)",
  truncated: "(tronqué)",
  failed: "⚠️ {reason}",
  answerCut: "réponse coupée : {reason}",
  numberInLine:
    "⏳ beaucoup de questions en ce moment : la vôtre est la {place, number}ᵉ dans la file",
  busy: "⏳ Le bot est très sollicité en ce moment : réessayez dans une minute.",

  errorUnexpected: "une erreur s’est produite du côté du bot",
  errorApiKey: "le chatbot a refusé la clé d’API ({status})",
  errorPermission:
    "le chatbot a refusé l’accès ({status}) : la conversation nécessite un abonnement payant sur le compte du chatbot",
  errorNotFound: "chatbot introuvable ({status}) : vérifiez l’URL de base et l’identifiant du bot",
  errorBackendBusy: "le chatbot est surchargé ({status}) ; réessayez dans un instant",
  errorBackendFailed: "le service du chatbot a échoué ({status}) ; réessayez plus tard",
  errorBackendRefused: "le chatbot a refusé la requête ({status})",
  errorApi: "le chatbot a renvoyé une erreur (code {code})",
  errorApiDetail: "le chatbot a renvoyé une erreur (code {code}) : {detail}",
  errorProtocol: "le chatbot a envoyé une réponse que ce bot ne sait pas lire",
  errorNoResponse: "le chatbot n’a pas répondu à temps",
  errorSilent: "le chatbot a cessé d’envoyer sa réponse",
  errorTooLong: "le chatbot a mis plus de {duration}",
  errorUnreachable: "impossible de joindre le chatbot",
  errorConnectionLost: "connexion perdue",
  errorInterrupted: "interrompue",
  errorStore: "le stockage du bot est indisponible pour le moment ; réessayez dans un instant",
  errorPlatformRateLimit: "la plateforme de discussion a demandé au bot de ralentir",
  errorCannotPost: "le bot ne peut pas publier ici",
  errorCannotPostBecause: "le bot ne peut pas publier ici ({error})",
  errorRestarting:
    "le bot redémarre et n’a pas pu traiter votre question : reposez-la dans une minute",
  errorSlackRefused: "Slack a refusé la réponse ({error})",
  errorSlackAdminCheck:
    "impossible de vérifier si vous êtes administrateur de l’espace de travail ({error})",
  errorTelegramRefused: "Telegram a refusé la requête du bot ({error})",
  errorTelegramUnreachable: "le bot n’a pas pu joindre Telegram ; réessayez dans un instant",
  errorTelegramAdminCheck:
    "impossible de vérifier auprès de Telegram si vous êtes administrateur ici ; réessayez",

  channelNotEnabled: "Ce bot n’est pas activé dans ce canal.",
  userNotAllowed:
    "Désolé, vous ne figurez pas sur la liste des personnes autorisées à utiliser ce bot.",
  emptyQuestion: "Veuillez écrire une question.",
  questionTooLong:
    "Votre question fait {length, number} caractères ; la limite est de {limit, number}. Raccourcissez-la, s’il vous plaît.",
  slowDown:
    "Doucement : vous pouvez poser {count, plural, one {# question} other {# questions}} en {window, number} s. Réessayez dans {seconds, number} s.",
  onlyText: "Je ne sais lire que les messages texte : écrivez votre question, s’il vous plaît.",

  helpIntro: "Posez-moi n’importe quelle question, ou utilisez une commande :",
  helpLine: "{usage}  {what}",
  helpHelp: "affiche la liste des commandes",
  helpNew: "commence une nouvelle conversation dans ce fil",
  helpLanguage: "affiche la langue des réponses de ce canal",
  helpLanguageSet: "la change (administrateurs ; {auto} la réinitialise)",
  helpLeads:
    "liste les prospects des derniers jours (par défaut {days, number}), dans un canal de prospects",
  helpLeadsSubscribe: "annonce ici les nouveaux prospects (administrateurs) ; {unsubscribe} arrête",
  unknownCommand: "Commande inconnue : {command}.",
  newConversation:
    "On repart de zéro : votre prochaine question commence une nouvelle conversation.",
  newOutsideThread:
    "Ici, chaque fil est une conversation à part : ouvrez un nouveau fil (mentionnez-moi ou envoyez-moi un nouveau message) pour repartir de zéro, ou écrivez {new} après une mention dans un fil.",
  languageNamed: "{name} ({code})",
  languageAuto: "la langue de chaque question ({code})",
  languageShown:
    "Les réponses ici sont en {language}. Les administrateurs peuvent la changer avec {command}.",
  languageShownDefault:
    "Langue des réponses ici : {language}, celle par défaut. Les administrateurs peuvent la changer avec {command}.",
  languageSet: "Les réponses ici sont désormais en {language}.",
  languageReset: "Langue des réponses réinitialisée, désormais ici : {language}.",
  languageAdminOnly: "Seul un administrateur de ce canal peut changer la langue des réponses.",
  languageUnknown: "code de langue inconnu. Codes valides : {codes}",

  leadsUsage: "attendu : {list}, {days} (de 1 à {max, number}), {subscribe} ou {unsubscribe}",
  leadsNotSetUp: "Les annonces de prospects ne sont pas configurées pour ce bot.",
  leadsAdminOnly:
    "Seuls les administrateurs du bot peuvent activer ou désactiver les annonces de prospects.",
  leadsOnlyInLeadChannels:
    "Les prospects ne s’affichent que dans les canaux de prospects. Un administrateur du bot peut en faire un canal de prospects avec {command}.",
  leadsNone: "Aucun prospect {days, plural, one {depuis hier} other {ces # derniers jours}}.",
  leadsTooManyToCount:
    "Trop de prospects pour les compter : le bot en lit au plus {read, number} à la fois, et tous ceux qu’il a lus sont antérieurs {days, plural, one {à la veille} other {aux # derniers jours}}.",
  leadsTitle:
    "{count, plural, one {# prospect} other {# prospects}} {days, plural, one {depuis hier} other {ces # derniers jours}}, du plus récent au plus ancien :",
  leadsTitleAtLeast:
    "Au moins {count, plural, one {# prospect} other {# prospects}} {days, plural, one {depuis hier} other {ces # derniers jours}} (plus que ce que le bot lit en une fois), du plus récent au plus ancien :",
  leadsMoreAtLeast: "…et au moins {count, number} de plus.",
  leadsMoreOlder: "…et {count, plural, one {# plus ancien} other {# plus anciens}}.",
  leadLine: "• {time} : {name} · {phone} · {email}",
  leadLineRemark: "• {time} : {name} · {phone} · {email} — « {remark} »",
  leadsConfigured:
    "Ce canal reçoit les prospects par la configuration du bot ({variables}) ; c’est là qu’il faut la modifier.",
  leadsSubscribed: "Ce canal reçoit désormais chaque nouveau prospect.",
  leadsAlreadySubscribed: "Ce canal reçoit déjà chaque nouveau prospect.",
  leadsUnsubscribed: "Ce canal ne reçoit plus les annonces de prospects.",
  leadsNotSubscribed: "Ce canal ne recevait pas les annonces de prospects.",
  leadTitle: "Nouveau prospect",
  leadFallback: "Nouveau prospect : {name}",
  leadName: "Nom",
  leadPhone: "Téléphone",
  leadEmail: "E-mail",
  leadRemark: "Remarque",
  leadTime: "Date",
  leadConversation: "Conversation",
  leadCaptured: "Recueilli",
  leadCapturedOutside: "en dehors des discussions de ce bot",
  leadCapturedPrivate: "dans une discussion privée {platform} avec {name}",
  leadCapturedBusiness: "dans la discussion {platform} du compte professionnel avec {name}",
  leadCapturedPrivateUnnamed: "dans une discussion privée {platform}",
  leadCapturedThreadUnnamed: "dans un fil {platform}",
  leadCapturedGroupUnnamed: "dans un groupe {platform}",
  leadCapturedThread: "dans un fil {platform} de {where}",
  leadCapturedGroup: "dans le groupe {platform} {where}",

  assistantGreeting:
    "Bonjour ! Posez-moi n’importe quelle question. Ici, chaque fil est une conversation à part ; {command} liste les commandes.",
  promptAbilities: "Que sais-tu faire ?",
  promptStart: "Par où commencer ?",
  promptSimpleTitle: "Explique simplement",
  promptSimple: "Explique en quelques phrases simples ce que tu connais.",
  statusThinking: "réfléchit…",

  contextThread: "Plus tôt dans ce fil :",
  contextReply: "En réponse à :",
  contextQuestion: "Question :",

  menuHelp: "Afficher la liste des commandes",
  menuNew: "Commencer une nouvelle conversation ici",
  menuLanguage: "Afficher la langue des réponses (administrateurs : {command})",
  menuLeads: "Lister les prospects récents ; {command} les annonce ici",

  consoleThinking: "réflexion…",
  consoleWelcome:
    "Discutez avec le chatbot : tapez une question, ou {command} pour la liste des commandes.",
  consoleSimulated:
    "(Les réponses viennent du chatbot simulé intégré : définissez {url}, {key} et {uid} pour utiliser le vôtre.)",
  consoleKeys: "{stop} arrête une réponse ; à l’invite, {stop} ou {quit} quitte.",
  consoleDropped:
    "({count, plural, one {# ligne tapée pendant la réponse a été ignorée} other {# lignes tapées pendant la réponse ont été ignorées}})",
  stoppedBy: "⏹ arrêtée par {name}",
  stopped: "⏹ arrêtée",
  nothingToStop: "Rien à arrêter : aucune réponse n’est en cours d’écriture dans ce fil.",
  withdrawnBy: "⏹ retirée par {name} : cette question ne recevra pas de réponse",
  withdrawn: "⏹ retirée : cette question ne recevra pas de réponse",
  questionWithdrawn:
    "⏹ {count, plural, one {Votre question en attente a été retirée.} other {# questions en attente ont été retirées.}}",
  stopUsage: "attendu : {stop}",
  stopRefused:
    "Seule la personne qui a posé la question ou un admin de ce canal peut arrêter cette réponse.",
  stopButton: "⏹ Arrêter",
  voteThanks: "Merci pour votre {mark} !",
  voteChanged: "Votre vote est maintenant {mark}. Merci !",
  voteTooLate: "Cette réponse est trop ancienne pour être notée.",
  feedbackAdminOnly: "Seul un admin de ce canal peut voir les avis.",
  feedbackUsage: "attendu : {list} ou {days} (de 1 à {max, number})",
  feedbackNoneHere:
    "Aucun vote sur les réponses de ce canal {days, plural, one {depuis hier} other {ces # derniers jours}}.",
  feedbackNoneAll:
    "Aucun vote sur les réponses, tous canaux confondus, {days, plural, one {depuis hier} other {ces # derniers jours}}.",
  feedbackHere:
    "Votes sur les réponses de ce canal {days, plural, one {depuis hier} other {ces # derniers jours}} : 👍 {up, number} · 👎 {down, number} ({share, number, percent} de 👍)",
  feedbackAll:
    "Votes sur les réponses de tous les canaux {days, plural, one {depuis hier} other {ces # derniers jours}} : 👍 {up, number} · 👎 {down, number} ({share, number, percent} de 👍)",
  helpStop: "arrête la réponse en cours dans ce fil (l’auteur de la question ou un admin)",
  helpFeedback:
    "compte les 👍 et 👎 sur les réponses d’ici (admins ; par défaut {days, plural, one {# jour} other {# jours}})",
  menuStop: "Arrêter la réponse en cours (dans un groupe : en réponse à celle-ci)",
  menuFeedback: "Compter les 👍 et 👎 sur les réponses d’ici",
  claimButton: "Je m’en occupe",
  releaseButton: "Libérer",
  claimedBy: "Pris en charge par {name} le {time}",
  alreadyClaimed: "{name} s’occupe déjà de ce prospect, depuis le {time}.",
  youHaveIt: "Vous vous occupez déjà de ce prospect.",
  onlyClaimerReleases: "Seul(e) {name}, qui a pris ce prospect, peut le libérer.",
  notClaimed: "Personne ne s’occupe de ce prospect en ce moment.",
  claimUnavailable: "Ce prospect ne peut plus être pris en charge ici.",
  claimTryAgain: "Le prospect vient de changer de mains : veuillez réessayer.",
  listedClaim: "pris en charge par {name} ({time})",
  leadLabel: "{label} :",

  chatbotFailed: "{chatbot} : {reason}",
  helpChatbot: "affiche le chatbot qui répond ici, et les autres",
  helpChatbotUse: "envoie les nouvelles conversations d’ici à ce chatbot (administrateurs)",
  helpLeadsSubscribeChatbot: "annonce ici les nouveaux prospects de ce chatbot (administrateurs)",
  menuChatbot: "Afficher le chatbot de cette discussion (administrateurs : {command})",
  chatbotShown:
    "Les questions d’ici vont à {chatbot}. Chatbots : {list}. Les administrateurs peuvent le changer avec {command}.",
  chatbotShownDefault:
    "Les questions d’ici vont à {chatbot}, celui par défaut. Chatbots : {list}. Les administrateurs peuvent le changer avec {command}.",
  chatbotSet:
    "Les nouvelles conversations d’ici vont désormais à {chatbot}. Une conversation en cours reste avec son chatbot ; {new} en commence une nouvelle.",
  chatbotAdminOnly: "Seul un administrateur de ce canal peut choisir son chatbot.",
  chatbotUnknown: "Aucun chatbot ne s’appelle {name}. Chatbots : {list}.",
  chatbotUsage: "attendu : {show} ou {use}",
  chatbotHere: "Chatbot de ce canal : {chatbot}.",
  leadsSubscribedTo: "Ce canal reçoit désormais les nouveaux prospects de {chatbot}.",
  leadsAlreadySubscribedTo: "Ce canal reçoit déjà les nouveaux prospects de {chatbot}.",
  leadsUnsubscribedFrom: "Ce canal ne reçoit plus les prospects de {chatbot}.",
  leadsNotSubscribedTo: "Ce canal ne recevait pas les prospects de {chatbot}.",
  leadsOf: "Prospects de {chatbot} :",
  leadChatbot: "Chatbot",
  feedbackOfChatbot: "{chatbot} : 👍 {up, number} · 👎 {down, number}",

  // A person of the company talks with a lead's customer through the bot (a hand-over): the
  // card's buttons and lines, what the customer is told, the lines relayed, the private replies.
  talkButton: "Lui parler",
  handBackButton: "Rendre la main",
  handoverTalking: "{name} échange avec ce prospect (depuis le {time})",
  handoverHandedBack: "Main rendue au chatbot le {time}",
  handoverJoined:
    "{name}, de notre équipe, a rejoint cette discussion. Le chatbot est en pause jusqu’à ce qu’on lui rende la main.",
  handoverEnded: "Le chatbot répond de nouveau dans cette discussion.",
  handoverCustomerLine: "💬 {name} : {text}",
  handoverCustomer: "Client",
  handoverSellerLine: "{name} (équipe commerciale) : {text}",
  pausedBy: "⏹ mise en pause : {name}, de l’équipe commerciale, a pris le relais",
  handoverOnlyClaimer:
    "Seul(e) {name}, qui a pris ce prospect, ou un admin du bot peut parler avec ce client.",
  handoverClaimFirst: "Prenez d’abord ce prospect en charge : vous pourrez ensuite lui parler.",
  handoverNotOurs:
    "La conversation de ce prospect n’a pas lieu dans une discussion que ce bot peut atteindre.",
  handoverBusy: "{name} parle déjà dans la discussion de ce client.",
  handoverNotOpen: "Personne ne parle avec ce client en ce moment.",
  handoverOver: "Cette discussion est revenue au chatbot : votre message n’a pas été envoyé.",
  handoverNotDelivered: "Message non remis : {reason}",
  handBackNone: "Aucun membre de l’entreprise ne parle dans cette discussion.",
  handBackAdminOnly: "Seul un admin de cette discussion peut la rendre au chatbot.",
  helpHandBack: "rend au chatbot une discussion reprise par un membre de l’entreprise (admins)",
  menuHandBack: "Rendre cette discussion au chatbot",
};
