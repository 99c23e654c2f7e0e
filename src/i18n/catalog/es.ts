import type { Messages } from "../messages.ts";

export const es: Messages = {
  noAnswer: "(sin respuesta)",
  truncated: "(recortada)",
  failed: "⚠️ {reason}",
  answerCut: "respuesta cortada: {reason}",
  numberInLine:
    "⏳ hay muchas preguntas ahora mismo: la tuya es la número {place, number} de la cola",
  busy: "⏳ El bot está muy ocupado ahora mismo: inténtalo de nuevo dentro de un minuto.",

  errorUnexpected: "algo ha fallado en el bot",
  errorApiKey: "el chatbot rechazó la clave de la API ({status})",
  errorPermission:
    "el chatbot denegó el acceso ({status}): para chatear hace falta una suscripción de pago en la cuenta del chatbot",
  errorNotFound:
    "no se encontró el chatbot ({status}): revisa la URL base y el identificador del bot",
  errorBackendBusy: "el chatbot está saturado ({status}); inténtalo de nuevo en breve",
  errorBackendFailed: "el servicio del chatbot ha fallado ({status}); inténtalo de nuevo más tarde",
  errorBackendRefused: "el chatbot rechazó la solicitud ({status})",
  errorApi: "el chatbot devolvió un error (código {code})",
  errorApiDetail: "el chatbot devolvió un error (código {code}): {detail}",
  errorProtocol: "el chatbot envió una respuesta que este bot no sabe leer",
  errorNoResponse: "el chatbot no respondió a tiempo",
  errorSilent: "el chatbot dejó de enviar la respuesta",
  errorTooLong: "el chatbot tardó más de {duration}",
  errorUnreachable: "no se pudo contactar con el chatbot",
  errorConnectionLost: "se perdió la conexión",
  errorInterrupted: "interrumpida",
  errorStore:
    "el almacenamiento del bot no está disponible ahora mismo; inténtalo de nuevo en breve",
  errorPlatformRateLimit: "la plataforma de chat pidió al bot que fuera más despacio",
  errorCannotPost: "el bot no puede publicar aquí",
  errorCannotPostBecause: "el bot no puede publicar aquí ({error})",
  errorRestarting:
    "el bot se está reiniciando y no llegó a tu pregunta: vuelve a hacerla dentro de un minuto",
  errorSlackRefused: "Slack rechazó la respuesta ({error})",
  errorSlackAdminCheck:
    "no se pudo comprobar si eres administrador del espacio de trabajo ({error})",
  errorTelegramRefused: "Telegram rechazó la solicitud del bot ({error})",
  errorTelegramUnreachable: "el bot no pudo contactar con Telegram; inténtalo de nuevo en breve",
  errorTelegramAdminCheck:
    "no se pudo comprobar con Telegram si eres administrador aquí; inténtalo de nuevo",

  channelNotEnabled: "Este bot no está activado en este canal.",
  userNotAllowed: "Lo siento, no estás en la lista de personas que pueden usar este bot.",
  emptyQuestion: "Escribe una pregunta, por favor.",
  questionTooLong:
    "Tu pregunta tiene {length, number} caracteres; el límite es {limit, number}. Acórtala, por favor.",
  slowDown:
    "Más despacio: puedes hacer {count, plural, one {# pregunta} other {# preguntas}} cada {window, number} s. Vuelve a intentarlo dentro de {seconds, number} s.",
  onlyText: "Solo puedo leer mensajes de texto: escribe tu pregunta, por favor.",

  helpIntro: "Pregúntame lo que quieras o usa un comando:",
  helpLine: "{usage}  {what}",
  helpHelp: "muestra la lista de comandos",
  helpNew: "empieza una conversación nueva en este hilo",
  helpLanguage: "muestra el idioma de las respuestas de este canal",
  helpLanguageSet: "lo cambia (administradores; {auto} lo restablece)",
  helpLeads:
    "muestra los clientes potenciales de los últimos días (por defecto {days, number}), en un canal de clientes potenciales",
  helpLeadsSubscribe:
    "anuncia aquí los nuevos clientes potenciales (administradores); {unsubscribe} lo detiene",
  unknownCommand: "Comando desconocido: {command}.",
  newConversation: "Empezamos de cero: tu próxima pregunta inicia una conversación nueva.",
  newOutsideThread:
    "Aquí cada hilo es una conversación aparte: abre un hilo nuevo (mencióname o envíame un mensaje nuevo) para empezar de cero, o escribe {new} después de una mención dentro de un hilo.",
  languageNamed: "{name} ({code})",
  languageAuto: "el idioma de cada pregunta ({code})",
  languageShown:
    "Aquí las respuestas están en {language}. Los administradores pueden cambiarlo con {command}.",
  languageShownDefault:
    "Aquí las respuestas están en {language}, el predeterminado. Los administradores pueden cambiarlo con {command}.",
  languageSet: "A partir de ahora, las respuestas aquí están en {language}.",
  languageReset: "Idioma restablecido: aquí las respuestas están en {language}.",
  languageAdminOnly:
    "Solo un administrador de este canal puede cambiar el idioma de las respuestas.",
  languageUnknown: "código de idioma desconocido. Códigos válidos: {codes}",

  leadsUsage: "se esperaba {list}, {days} (de 1 a {max, number}), {subscribe} o {unsubscribe}",
  leadsNotSetUp: "Los avisos de clientes potenciales no están configurados en este bot.",
  leadsAdminOnly:
    "Solo los administradores del bot pueden activar o desactivar los anuncios de clientes potenciales.",
  leadsOnlyInLeadChannels:
    "Los clientes potenciales solo se muestran en los canales de clientes potenciales. Un administrador del bot puede convertir este en uno con {command}.",
  leadsNone:
    "No hay clientes potenciales {days, plural, one {en el último día} other {en los últimos # días}}.",
  leadsTooManyToCount:
    "Demasiados clientes potenciales para contarlos: el bot lee como máximo {read, number} a la vez, y todos los que leyó son anteriores {days, plural, one {al último día} other {a los últimos # días}}.",
  leadsTitle:
    "{count, plural, one {# cliente potencial} other {# clientes potenciales}} {days, plural, one {en el último día} other {en los últimos # días}}, del más reciente al más antiguo:",
  leadsTitleAtLeast:
    "Al menos {count, plural, one {# cliente potencial} other {# clientes potenciales}} {days, plural, one {en el último día} other {en los últimos # días}} (más de los que el bot lee de una vez), del más reciente al más antiguo:",
  leadsMoreAtLeast: "…y al menos {count, number} más.",
  leadsMoreOlder: "…y {count, plural, one {# más antiguo} other {# más antiguos}}.",
  leadLine: "• {time}: {name} · {phone} · {email}",
  leadLineRemark: "• {time}: {name} · {phone} · {email} — «{remark}»",
  leadsConfigured:
    "Este canal recibe los clientes potenciales por la configuración del bot ({variables}); cámbialo allí.",
  leadsSubscribed: "A partir de ahora, este canal recibe cada nuevo cliente potencial.",
  leadsAlreadySubscribed: "Este canal ya recibe cada nuevo cliente potencial.",
  leadsUnsubscribed: "Este canal ya no recibe avisos de clientes potenciales.",
  leadsNotSubscribed: "Este canal no recibía avisos de clientes potenciales.",
  leadTitle: "Nuevo cliente potencial",
  leadFallback: "Nuevo cliente potencial: {name}",
  leadName: "Nombre",
  leadPhone: "Teléfono",
  leadEmail: "Correo",
  leadRemark: "Comentario",
  leadTime: "Fecha",
  leadConversation: "Conversación",
  leadCaptured: "Captado",
  leadCapturedOutside: "fuera de los chats de este bot",
  leadCapturedPrivate: "en un chat privado de {platform} con {name}",
  leadCapturedBusiness: "en el chat de {platform} de la cuenta de empresa con {name}",
  leadCapturedPrivateUnnamed: "en un chat privado de {platform}",
  leadCapturedThreadUnnamed: "en un hilo de {platform}",
  leadCapturedGroupUnnamed: "en un grupo de {platform}",
  leadCapturedThread: "en un hilo de {platform} en {where}",
  leadCapturedGroup: "en el grupo de {platform} {where}",

  assistantGreeting:
    "¡Hola! Pregúntame lo que quieras. Aquí cada hilo es una conversación aparte; {command} muestra los comandos.",
  promptAbilities: "¿Qué sabes hacer?",
  promptStart: "¿Por dónde empiezo?",
  promptSimpleTitle: "Explícalo con sencillez",
  promptSimple: "Explica en unas pocas frases sencillas sobre qué sabes.",
  statusThinking: "está pensando…",

  contextThread: "Antes en este hilo:",
  contextReply: "En respuesta a:",
  contextQuestion: "Pregunta:",

  menuHelp: "Mostrar la lista de comandos",
  menuNew: "Empezar una conversación nueva aquí",
  menuLanguage: "Mostrar el idioma de las respuestas (administradores: {command})",
  menuLeads: "Ver los clientes potenciales recientes; {command} los anuncia aquí",

  consoleThinking: "pensando…",
  consoleWelcome: "Chatea con el chatbot: escribe una pregunta, o {command} para ver los comandos.",
  consoleSimulated:
    "(Las respuestas vienen del chatbot simulado integrado: define {url}, {key} y {uid} para usar el tuyo.)",
  consoleKeys: "{stop} detiene una respuesta; en el indicador, {stop} o {quit} sale.",
  consoleDropped:
    "({count, plural, one {se descartó # línea escrita durante la respuesta} other {se descartaron # líneas escritas durante la respuesta}})",
  stoppedBy: "⏹ detenida por {name}",
  stopped: "⏹ detenida",
  nothingToStop: "Nada que detener: no se está escribiendo ninguna respuesta en este hilo.",
  withdrawnBy: "⏹ retirada por {name}: esta pregunta no se responderá",
  withdrawn: "⏹ retirada: esta pregunta no se responderá",
  questionWithdrawn:
    "⏹ {count, plural, one {Se retiró tu pregunta en espera.} other {Se retiraron # preguntas en espera.}}",
  stopUsage: "se esperaba {stop}",
  stopRefused:
    "Solo quien hizo la pregunta o un administrador de este canal puede detener esta respuesta.",
  stopButton: "⏹ Detener",
  voteThanks: "¡Gracias por tu {mark}!",
  voteChanged: "Tu voto ahora es {mark}. ¡Gracias!",
  voteTooLate: "Esta respuesta es demasiado antigua para valorarla.",
  feedbackAdminOnly: "Solo un administrador de este canal puede ver las valoraciones.",
  feedbackUsage: "se esperaba {list} o {days} (de 1 a {max, number})",
  feedbackNoneHere:
    "No hay votos sobre las respuestas de este canal {days, plural, one {en el último día} other {en los últimos # días}}.",
  feedbackNoneAll:
    "No hay votos sobre las respuestas de ningún canal {days, plural, one {en el último día} other {en los últimos # días}}.",
  feedbackHere:
    "Votos sobre las respuestas de este canal {days, plural, one {en el último día} other {en los últimos # días}}: 👍 {up, number} · 👎 {down, number} ({share, number, percent} 👍)",
  feedbackAll:
    "Votos sobre las respuestas de todos los canales {days, plural, one {en el último día} other {en los últimos # días}}: 👍 {up, number} · 👎 {down, number} ({share, number, percent} 👍)",
  helpStop:
    "detiene la respuesta que se está escribiendo en este hilo (quien preguntó o un administrador)",
  helpFeedback:
    "cuenta los 👍 y 👎 de las respuestas de aquí (administradores; por defecto {days, plural, one {# día} other {# días}})",
  menuStop: "Detener la respuesta en curso (en un grupo, respóndele)",
  menuFeedback: "Contar los 👍 y 👎 de las respuestas de aquí",
  claimButton: "Me encargo yo",
  releaseButton: "Liberar",
  claimedBy: "Asignado a {name} el {time}",
  alreadyClaimed: "{name} ya se encargó de este cliente potencial, el {time}.",
  youHaveIt: "Ya te encargas de este cliente potencial.",
  onlyClaimerReleases: "Solo {name}, que se encargó de este cliente potencial, puede liberarlo.",
  notClaimed: "Nadie se encarga de este cliente potencial ahora mismo.",
  claimUnavailable: "Este cliente potencial ya no se puede asignar aquí.",
  claimTryAgain: "El cliente potencial acaba de cambiar de manos: inténtalo de nuevo.",
  listedClaim: "asignado a {name} ({time})",
  leadLabel: "{label}:",

  chatbotFailed: "{chatbot}: {reason}",
  helpChatbot: "muestra qué chatbot responde aquí, y los demás",
  helpChatbotUse: "envía las conversaciones nuevas de aquí a ese chatbot (administradores)",
  helpLeadsSubscribeChatbot:
    "anuncia aquí los nuevos clientes potenciales de ese chatbot (administradores)",
  menuChatbot: "Mostrar el chatbot de este chat (administradores: {command})",
  chatbotShown:
    "Las preguntas de aquí van a {chatbot}. Chatbots: {list}. Los administradores pueden cambiarlo con {command}.",
  chatbotShownDefault:
    "Las preguntas de aquí van a {chatbot}, el predeterminado. Chatbots: {list}. Los administradores pueden cambiarlo con {command}.",
  chatbotSet:
    "A partir de ahora, las conversaciones nuevas de aquí van a {chatbot}. Una conversación en curso sigue con su chatbot; {new} empieza una nueva.",
  chatbotAdminOnly: "Solo un administrador de este canal puede elegir su chatbot.",
  chatbotUnknown: "Ningún chatbot se llama {name}. Chatbots: {list}.",
  chatbotUsage: "se esperaba {show} o {use}",
  chatbotHere: "Chatbot de este canal: {chatbot}.",
  leadsSubscribedTo: "Este canal recibe ahora los nuevos clientes potenciales de {chatbot}.",
  leadsAlreadySubscribedTo: "Este canal ya recibe los nuevos clientes potenciales de {chatbot}.",
  leadsUnsubscribedFrom: "Este canal ya no recibe los clientes potenciales de {chatbot}.",
  leadsNotSubscribedTo: "Este canal no recibía los clientes potenciales de {chatbot}.",
  leadsOf: "Clientes potenciales de {chatbot}:",
  leadChatbot: "Chatbot",
  feedbackOfChatbot: "{chatbot}: 👍 {up, number} · 👎 {down, number}",

  // A person of the company talks with a lead's customer through the bot (a hand-over): the
  // card's buttons and lines, what the customer is told, the lines relayed, the private replies.
  talkButton: "Atender",
  handBackButton: "Devolver",
  handoverTalking: "{name} está hablando con el cliente (desde el {time})",
  handoverHandedBack: "Devuelto al chatbot el {time}",
  handoverJoined:
    "{name}, de nuestro equipo, se ha unido a este chat. El chatbot queda en pausa hasta que se lo devuelvan.",
  handoverEnded: "El chatbot vuelve a responder en este chat.",
  handoverCustomerLine: "💬 {name}: {text}",
  handoverCustomer: "Cliente",
  handoverSellerLine: "{name} (Ventas): {text}",
  pausedBy: "⏹ pausada: {name}, de Ventas, ha tomado el relevo",
  handoverOnlyClaimer:
    "Solo {name}, que se encargó de este cliente potencial, o un administrador del bot puede hablar con este cliente.",
  handoverClaimFirst: "Encárgate primero del cliente potencial: después podrás hablar con él.",
  handoverNotOurs:
    "La conversación de este cliente potencial no está en ningún chat al que llegue este bot.",
  handoverBusy: "{name} ya está hablando en el chat de este cliente.",
  handoverNotOpen: "Nadie está hablando con este cliente ahora mismo.",
  handoverOver: "Este chat ha vuelto al chatbot: tu mensaje no se ha enviado.",
  handoverNotDelivered: "No entregado: {reason}",
  handBackNone: "Nadie de la empresa está hablando en este chat.",
  handBackAdminOnly: "Solo un administrador de este chat puede devolverlo al chatbot.",
  helpHandBack: "devuelve al chatbot un chat que atendía alguien de la empresa (administradores)",
  menuHandBack: "Devolver este chat al chatbot",
};
